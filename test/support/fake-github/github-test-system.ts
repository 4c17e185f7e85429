import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { type RunningApi, startApi } from '@pullwright/api';
import { type RunningWorker, startWorker } from '@pullwright/code-worker';
import { createLogger, loadConfig } from '@pullwright/core';
import { createRuntime, type Runtime } from '@pullwright/pipeline';
import { Redactor } from '@pullwright/security';
import { inject } from 'vitest';
import type { FakeGitHub } from '../fake-github.ts';
import { DEMO_TRANSCRIPT, TEST_TOKEN } from '../test-runtime.ts';

const WEBHOOK_SECRET = 'webhook-secret-for-tests-0123';

export interface GitHubTestSystem {
  runtime: Runtime;
  api: RunningApi;
  worker: RunningWorker | undefined;
  startWorker(): Promise<RunningWorker>;
  stopWorker(): Promise<void>;
  /** Every log line the API and worker wrote (debug level), as the production logger writes them. */
  logs: string[];
  request(method: string, url: string, body?: unknown): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * Pullwright (API + worker) configured as a GitHub App of `gh`, the way an operator would:
 * FORGE=github, GITHUB_URL, app id, the key as a file path, the webhook secret. The fake's
 * webhooks are pointed at this API. Logs are captured through the production logger setup.
 */
export async function startGitHubTestSystem(
  gh: FakeGitHub,
  env: Record<string, string> = {},
): Promise<GitHubTestSystem> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pw-gh-test-'));
  const keyFile = await gh.writePrivateKey(dataDir);
  const config = loadConfig({
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: `t${randomBytes(6).toString('hex')}`,
    DATA_DIR: dataDir,
    API_TOKEN: TEST_TOKEN,
    PORT: '0',
    LOG_LEVEL: 'debug',
    LLM_PROVIDER: 'replay',
    REPLAY_FILE: DEMO_TRANSCRIPT,
    CHECK_TIMEOUT_MS: '60000',
    FORGE: 'github',
    GITHUB_URL: gh.url,
    GITHUB_APP_ID: gh.appId,
    GITHUB_APP_PRIVATE_KEY: keyFile,
    GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
    ...env,
  });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const redactor = new Redactor({ secrets: config.secrets });
  const logger = createLogger({ level: config.logLevel, scrubber: redactor, destination });
  const runtime = await createRuntime(config, logger, redactor);
  const api = await startApi(runtime);
  gh.setWebhook(`${api.url}/github/webhooks`, WEBHOOK_SECRET);
  const system: GitHubTestSystem = {
    runtime,
    api,
    worker: await startWorker(runtime),
    logs,
    async startWorker() {
      system.worker = await startWorker(runtime);
      return system.worker;
    },
    async stopWorker() {
      await system.worker?.close();
      system.worker = undefined;
    },
    request: (method, url, body) =>
      fetch(`${api.url}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${TEST_TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    async stop() {
      await system.stopWorker();
      await api.close();
      await runtime.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return system;
}
