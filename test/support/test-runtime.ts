import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { type RunningApi, startApi } from '@pullwright/api';
import { type RunningWorker, startWorker } from '@pullwright/code-worker';
import { createLogger, loadConfig, silentLogger } from '@pullwright/core';
import { createRuntime, type Runtime } from '@pullwright/pipeline';
import { TRANSCRIPT_ARTIFACT } from '@pullwright/queue';
import { Redactor } from '@pullwright/security';
import { redisEnv } from './redis-env.ts';

export const TEST_TOKEN = 'test-token-0123456789abcdef';
export const DEMO_TRANSCRIPT = path.resolve(import.meta.dirname, '../../apps/cli/demo/debug-slugify.replay.json');

export interface TestSystem {
  runtime: Runtime;
  api: RunningApi;
  worker: RunningWorker | undefined;
  dataDir: string;
  /** Every log line the system wrote (with `captureLogs`), after redaction: what an operator would see. */
  logLines: string[];
  /** The operation's transcript as stored (the ArtifactStore); empty when there is none. */
  transcript(opId: string): Promise<string>;
  /** fetch against the API with the bearer token. */
  request(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  startWorker(): Promise<RunningWorker>;
  stop(): Promise<void>;
}

/**
 * A whole Pullwright (API + worker) against the run's private Redis, with a fresh key prefix
 * and data directory, so tests cannot see each other's operations.
 */
export async function startTestSystem(
  options: {
    env?: Record<string, string>;
    worker?: boolean;
    captureLogs?: boolean;
    demo?: boolean;
    /** The API's clock (sessions, queue ages): a test moves it instead of waiting. */
    now?: () => number;
  } = {},
): Promise<TestSystem> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pw-test-'));
  const config = loadConfig({
    ...redisEnv(),
    REDIS_PREFIX: `t${randomBytes(6).toString('hex')}`,
    DATA_DIR: dataDir,
    API_TOKEN: TEST_TOKEN,
    PORT: '0',
    LOG_LEVEL: 'silent',
    LLM_PROVIDER: 'replay',
    REPLAY_FILE: DEMO_TRANSCRIPT,
    CHECK_TIMEOUT_MS: '60000',
    ...options.env,
  });
  const logLines: string[] = [];
  let logger = silentLogger();
  const redactor = new Redactor({ secrets: config.secrets });
  if (options.captureLogs) {
    const destination = new PassThrough();
    destination.setEncoding('utf8').on('data', (line: string) => logLines.push(line));
    logger = createLogger({ level: 'debug', destination, scrubber: redactor });
  }
  const runtime = await createRuntime(config, logger, redactor, { demo: options.demo ?? false });
  const api = await startApi(runtime, options.now ? { now: options.now } : {});
  const system: TestSystem = {
    runtime,
    api,
    worker: undefined,
    dataDir,
    logLines,
    transcript: async (opId) => (await runtime.artifacts.read(opId, TRANSCRIPT_ARTIFACT))?.content ?? '',
    request: (method, url, body, headers = {}) =>
      fetch(`${api.url}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${TEST_TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      }),
    async startWorker() {
      system.worker = await startWorker(runtime);
      return system.worker;
    },
    async stop() {
      await system.worker?.close();
      await api.close();
      await runtime.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  if (options.worker !== false) await system.startWorker();
  return system;
}
