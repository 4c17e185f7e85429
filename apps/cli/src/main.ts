import { isPullwrightError } from '@pullwright/core';
import { embeddedEnv, withReplayDefault } from './embedded-defaults.ts';
import { helpFor, USAGE } from './help.ts';
import { initSecrets } from './init-secrets.ts';
import { checkStart } from './start-checks.ts';

/**
 * The commands. Server commands check their configuration first (`checkStart`, milliseconds)
 * and only then load the server's modules (`import()`, a chunk of its own in the build): a
 * bad setting is reported before seconds go into loading code that would not run.
 */
async function run(command: string | undefined, args: string[]): Promise<number> {
  const env = process.env;
  switch (command) {
    case 'start': {
      const embedded = embeddedEnv(env);
      const warnings = checkStart(embedded.env, 'all');
      return (await import('./run-all.ts')).runAll(embedded, warnings);
    }
    case 'api': {
      const warnings = checkStart(env, 'api');
      return (await import('./run-api.ts')).runApi(env, warnings);
    }
    case 'worker': {
      const { env: withModel, replayDemo } = withReplayDefault(env);
      const warnings = checkStart(withModel, 'worker');
      return (await import('./run-worker.ts')).runWorker(withModel, warnings, replayDemo);
    }
    case 'demo':
      checkStart(withReplayDefault({ ...env, PORT: '0' }).env, 'all');
      return (await import('./run-demo.ts')).runDemo(env);
    case 'export':
      return (await import('./export-operation.ts')).exportOperation(args, env);
    case 'eval':
      return (await import('./eval-command.ts')).evalCommand(args, {
        env,
        stdout: process.stdout,
        stderr: process.stderr,
      });
    case 'mcp':
      return (await import('./mcp-command.ts')).mcpCommand(env, process.stderr);
    case 'repo':
      return (await import('./repo-command.ts')).repoCommand(args, {
        env,
        stdout: process.stdout,
        stderr: process.stderr,
      });
    case 'init-secrets': {
      const [dir, apiDir] = args;
      if (!dir || args.length > 2) {
        process.stderr.write('usage: pullwright init-secrets <dir> [<api-dir>]\n');
        return 2;
      }
      const created = initSecrets(dir, apiDir);
      process.stdout.write(
        `secrets in ${dir}: ${created.length > 0 ? `created ${created.join(', ')}` : 'all present, kept'}\n`,
      );
      return 0;
    }
    case 'scan':
      return (await import('@pullwright/security')).runScanCommand(args, {
        stdin: process.stdin,
        stdout: process.stdout,
        stderr: process.stderr,
        stdinIsTTY: Boolean(process.stdin.isTTY),
      });
    default:
      process.stderr.write(`pullwright: unknown command ${JSON.stringify(command)}\n${USAGE}\n`);
      return 2;
  }
}

export async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  const help = helpFor(argv);
  if (help !== undefined) {
    process.stdout.write(`${help}\n`);
    return 0;
  }
  try {
    return await run(command, argv.slice(1));
  } catch (err) {
    // Configuration and start-up problems are reported once, in words, without a stack, and
    // the process ends now: open Redis connections or timers must not keep it alive (a
    // container that hangs is never restarted; one that exits is).
    process.stderr.write(`pullwright ${command}: ${isPullwrightError(err) ? err.message : (err as Error).message}\n`);
    process.exit(1);
  }
}
