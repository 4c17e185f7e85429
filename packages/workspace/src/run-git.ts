import { spawn } from 'node:child_process';
import { HARDENED_GIT_CONFIG } from '@pullwright/security';

export class GitCommandError extends Error {}

interface RunGitOptions {
  /** Written to git's stdin (e.g. `cat-file --batch`). */
  input?: string;
  /** Added to the minimal environment (GIT_INDEX_FILE, a credential helper's variables). */
  env?: Record<string, string>;
  /** `-c` settings after the hardened ones (a credential helper). */
  config?: readonly string[];
}

/** The subcommand for error messages: the first argument that is not an option or an option's value. */
function subcommand(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-c' || a === '-C') i++;
    else if (!a.startsWith('-')) return a;
  }
  return args[0] ?? '';
}

/**
 * git with the hardened configuration (no hooks, no fsmonitor, no external helpers), a
 * minimal environment plus `env`, and raw bytes out. Resolves when git exits 0, rejects
 * with its stderr otherwise — as soon as it closes: simple-git waited 50 ms more after
 * every command that printed nothing, which was most of a job's git time (decisions).
 */
export function runGit(dir: string, args: readonly string[], options: RunGitOptions = {}): Promise<Buffer> {
  const config = [...HARDENED_GIT_CONFIG, ...(options.config ?? [])].flatMap((c) => ['-c', c]);
  const { input } = options;
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...config, '-C', dir, ...args], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        GIT_TERMINAL_PROMPT: '0',
        ...options.env,
      },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else
        reject(
          new GitCommandError(
            `git ${subcommand(args)} failed (${code}): ${Buffer.concat(err).toString('utf8').trim()}`,
          ),
        );
    });
    if (input !== undefined) {
      // A git that exits early (bad object name) closes its input: that error is reported by 'close'.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(input);
    }
  });
}
