import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSlackServices, startApi } from '@pullwright/api';
import { startWorker, startWorkerHealthServer } from '@pullwright/code-worker';
import {
  type Config,
  configSecrets,
  createLogger,
  isPullwrightError,
  type Logger,
  loadConfig,
  type ProcessRole,
} from '@pullwright/core';
import { createRuntime, DEMO_REFUSAL, type Runtime } from '@pullwright/pipeline';
import { auditTrail } from '@pullwright/queue';
import { Redactor, runScanCommand } from '@pullwright/security';
import { seedDemo } from './demo-seed.ts';
import { type EmbeddedEnv, embeddedEnv, withReplayDefault } from './embedded-defaults.ts';
import { evalCommand } from './eval-command.ts';
import { helpFor, USAGE } from './help.ts';
import { initSecrets } from './init-secrets.ts';
import { repoCommand } from './repo-command.ts';
import { startTracing } from './start-tracing.ts';
import { printTimeline, waitForStatus } from './timeline.ts';

/**
 * Configuration checked for `role`, then the runtime; `runtimeRole: 'api'` builds no model
 * or sandbox (the API, and operator commands that only read Redis).
 */
async function boot(
  env: NodeJS.ProcessEnv,
  role: ProcessRole = 'all',
  runtimeRole: ProcessRole = role,
  demo = false,
): Promise<{ config: Config; logger: Logger; runtime: Runtime; stopTracing: () => Promise<void> }> {
  const config = loadConfig(env, role);
  const redactor = new Redactor({ secrets: configSecrets(config) });
  const logger = createLogger({ level: config.logLevel, scrubber: redactor });
  const stopTracing = startTracing(config, role, logger);
  const runtime = await createRuntime(config, logger, redactor, { role: runtimeRole, demo });
  return { config, logger, runtime, stopTracing };
}

/** Posts progress of Slack-started operations; runs beside the API that takes the Slack requests. */
function startSlackNotifier(runtime: Runtime): { close(): Promise<void> } | undefined {
  const notifier = createSlackServices(runtime)?.createNotifier();
  notifier?.start();
  return notifier;
}

function onShutdown(close: () => Promise<void>): void {
  let closing = false;
  const handler = () => {
    if (closing) return;
    closing = true;
    close().finally(() => process.exit(0));
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}

async function start(): Promise<number> {
  const embedded = await embeddedEnv(process.env);
  try {
    return await startAll(embedded);
  } catch (err) {
    // The private redis-server is our child: it must not outlive a failed start.
    await embedded.redis?.stop();
    throw err;
  }
}

async function startAll(embedded: EmbeddedEnv): Promise<number> {
  const { runtime, logger, stopTracing } = await boot(embedded.env, 'all', 'all', embedded.replayDemo);
  if (embedded.replayDemo) logger.warn(DEMO_REFUSAL);
  const api = await startApi(runtime);
  const worker = await startWorker(runtime);
  const slack = startSlackNotifier(runtime);
  onShutdown(async () => {
    await slack?.close();
    await worker.close();
    await api.close();
    await runtime.close();
    await embedded.redis?.stop();
    await stopTracing();
  });
  if (runtime.config.llm.provider === 'replay' && runtime.localForge) {
    const op = await seedDemo(runtime);
    logger.info({ opId: op.id }, 'demo operation enqueued');
  }
  const link = embedded.generatedToken ? `${api.url}/#token=${runtime.config.apiToken}` : api.url;
  process.stdout.write(
    `\nPullwright is running.\n  Dashboard: ${link}\n  API:       ${api.url}/v1/operations (Authorization: Bearer <API_TOKEN>)\n  Stop with Ctrl-C.\n\n`,
  );
  return new Promise<number>(() => undefined);
}

async function apiOnly(): Promise<number> {
  // The API runs no repository code: it starts without a sandbox on hosts that have none.
  const { runtime, logger, stopTracing } = await boot(process.env, 'api');
  const api = await startApi(runtime);
  const slack = startSlackNotifier(runtime);
  onShutdown(async () => {
    await slack?.close();
    await api.close();
    await runtime.close();
    await stopTracing();
  });
  logger.info({ url: api.url }, 'api listening');
  return new Promise<number>(() => undefined);
}

async function workerOnly(): Promise<number> {
  const { env, replayDemo } = withReplayDefault(process.env);
  const { runtime, logger, stopTracing } = await boot(env, 'worker', 'worker', replayDemo);
  if (replayDemo) logger.warn(DEMO_REFUSAL);
  const worker = await startWorker(runtime);
  const health = await startWorkerHealthServer(runtime, worker);
  onShutdown(async () => {
    await worker.close();
    await health.close();
    await runtime.close();
    await stopTracing();
  });
  logger.info({ concurrency: runtime.config.workerConcurrency, health: health.url }, 'worker started');
  return new Promise<number>(() => undefined);
}

/** `pullwright export <id>`: what GET /v1/operations/:id/audit serves, straight from Redis. */
async function exportOperation(args: string[]): Promise<number> {
  const id = args[0];
  if (!id || args.length > 1) {
    process.stderr.write('usage: pullwright export <operation id>   (JSONL on standard output)\n');
    return 2;
  }
  if (!process.env.REDIS_URL && !process.env.REDIS_CLUSTER_NODES) {
    process.stderr.write(
      'pullwright export: REDIS_URL (or REDIS_CLUSTER_NODES) is required: the Redis the service uses\n',
    );
    return 1;
  }
  const { runtime } = await boot({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL || 'silent' }, 'all', 'api');
  try {
    const redact = (text: string) => runtime.redactor.redact(text);
    for await (const line of auditTrail({ ...runtime, redact }, id)) {
      if (!process.stdout.write(line)) await new Promise((r) => process.stdout.once('drain', r));
    }
    return 0;
  } finally {
    await runtime.close();
  }
}

async function demo(): Promise<number> {
  const source = {
    ...process.env,
    DATA_DIR: process.env.DATA_DIR || mkdtempSync(path.join(os.tmpdir(), 'pullwright-demo-')),
    PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
  };
  const embedded = await embeddedEnv(source);
  const { runtime } = await boot(embedded.env, 'all', 'all', embedded.replayDemo);
  const api = await startApi(runtime);
  const worker = await startWorker(runtime);
  try {
    const op = await seedDemo(runtime);
    process.stdout.write(`operation ${op.id}: ${op.type} on ${op.repo}\n`);
    const ready = await waitForStatus(runtime, op.id, ['awaiting_approval', 'failed', 'cancelled'], 120_000);
    if (ready.status === 'awaiting_approval') {
      process.stdout.write(
        `pull request #${ready.pullRequest?.number} is awaiting approval; approving ${ready.pullRequest?.headSha.slice(0, 12)}\n`,
      );
      await runtime.actions.approve(op.id, { user: 'demo', source: 'api' }, ready.pullRequest?.headSha);
    }
    const final = await waitForStatus(runtime, op.id, ['merged', 'failed', 'cancelled', 'rejected'], 60_000);
    await printTimeline(runtime, op.id, process.stdout);
    return final.status === 'merged' ? 0 : 1;
  } finally {
    await worker.close();
    await api.close();
    await runtime.close();
    await embedded.redis?.stop();
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
    switch (command) {
      case 'start':
        return await start();
      case 'api':
        return await apiOnly();
      case 'worker':
        return await workerOnly();
      case 'demo':
        return await demo();
      case 'export':
        return await exportOperation(argv.slice(1));
      case 'eval':
        return await evalCommand(argv.slice(1), { env: process.env, stdout: process.stdout, stderr: process.stderr });
      case 'repo':
        return await repoCommand(argv.slice(1), { env: process.env, stdout: process.stdout, stderr: process.stderr });
      case 'init-secrets': {
        const dir = argv[1];
        if (!dir) {
          process.stderr.write('usage: pullwright init-secrets <dir>\n');
          return 2;
        }
        const created = initSecrets(dir);
        process.stdout.write(
          `secrets in ${dir}: ${created.length > 0 ? `created ${created.join(', ')}` : 'all present, kept'}\n`,
        );
        return 0;
      }
      case 'scan':
        return await runScanCommand(argv.slice(1), {
          stdin: process.stdin,
          stdout: process.stdout,
          stderr: process.stderr,
          stdinIsTTY: Boolean(process.stdin.isTTY),
        });
      default:
        process.stderr.write(`pullwright: unknown command ${JSON.stringify(command)}\n${USAGE}\n`);
        return 2;
    }
  } catch (err) {
    // Configuration and start-up problems are reported once, in words, without a stack, and
    // the process ends now: open Redis connections or timers must not keep it alive (a
    // container that hangs is never restarted; one that exits is).
    process.stderr.write(`pullwright ${command}: ${isPullwrightError(err) ? err.message : (err as Error).message}\n`);
    process.exit(1);
  }
}
