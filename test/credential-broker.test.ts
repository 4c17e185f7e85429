import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type RecordedRequest, type ScriptedServer, startScriptedServer } from '@pullwright/agent/testing';
import { FINAL_STATUSES, type Operation } from '@pullwright/core';
import { jobCredential } from '@pullwright/security';
import { eventually } from '@pullwright/testing/eventually';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type CliProcess, spawnCli } from './support/cli-process.ts';
import { FakeGitHub } from './support/fake-github.ts';
import { freePort } from './support/free-port.ts';
import { SAMPLE_DIR } from './support/sample-repo.ts';
import { SCRIPTED_MODEL, SCRIPTED_USAGE, slugifyFixScript } from './support/slugify-model-script.ts';

/**
 * A split deployment with the secrets where the design puts them: the API holds the GitHub App
 * key and the model key, and brokers both; the workers (separate processes) hold only Redis,
 * the API's address, WORKER_TOKEN and non-secret settings. GitHub is the GHES-style fake, the
 * model a scripted Anthropic Messages server that records which key each call carried.
 */
// Joined at run time: no tracked file holds a credential-shaped literal (repository-secret-scan).
const MODEL_KEY = ['sk', 'ant', 'api03', 'GATEWAYheldGATEWAYheld0123456789abcdefGATEWAY'].join('-');
const API_TOKEN = 'api-token-0123456789abcdefghij';
const WORKER_TOKEN = 'worker-token-0123456789abcdefghij';
const VERIFICATION_KEY = 'verification-key-0123456789abcdef';

/** What one scripted call costs at the list price (USD per million tokens: 2 in, 10 out, 0.1 cache read). */
const CALL_USD =
  (SCRIPTED_USAGE.input_tokens * 2 + SCRIPTED_USAGE.output_tokens * 10 + SCRIPTED_USAGE.cache_read_input_tokens * 0.1) /
  1_000_000;

/** A whole /debug run on a loaded machine (checks run twice in the sandbox); waitUntilDone stops first. */
const RUN_TIMEOUT_MS = 240_000;

/** The key a model call carried: the SDK sends it as a bearer token (older versions: `x-api-key`). */
const keyOf = (r: RecordedRequest) =>
  r.headers['x-api-key'] ?? /^Bearer (.+)$/.exec(r.headers.authorization ?? '')?.[1];

/** The long-lived keys no worker may hold. */
const LONG_LIVED = /ANTHROPIC_API_KEY|OPENAI_API_KEY|GITHUB_APP_PRIVATE_KEY|API_TOKEN/;

interface Deployment {
  apiUrl: string;
  prefix: string;
  workerEnv: Record<string, string>;
  processes: CliProcess[];
  request(method: string, url: string, body?: unknown, token?: string): Promise<Response>;
  waitUntilDone(id: string): Promise<Operation>;
  stop(): Promise<void>;
}

async function deploy(
  gh: FakeGitHub,
  model: ScriptedServer,
  options: { workers: number; workerEnv?: Record<string, string> },
): Promise<Deployment> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'pw-broker-'));
  const prefix = `t${randomBytes(6).toString('hex')}`;
  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  const shared = {
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: prefix,
    FORGE: 'github',
    GITHUB_URL: gh.url,
    VERIFICATION_KEY,
    WORKER_TOKEN,
    PUBLIC_URL: apiUrl,
    LOG_LEVEL: 'info',
  };
  const api = spawnCli(
    ['api'],
    {
      ...shared,
      PORT: String(port),
      DATA_DIR: path.join(tmp, 'api'),
      API_TOKEN,
      GITHUB_APP_ID: gh.appId,
      GITHUB_APP_PRIVATE_KEY: await gh.writePrivateKey(tmp),
      ANTHROPIC_API_KEY: MODEL_KEY,
      ANTHROPIC_BASE_URL: model.url,
    },
    '"api listening"',
  );
  const workerEnv = {
    ...shared,
    INTERNAL_API_URL: apiUrl,
    LLM_PROVIDER: 'anthropic',
    LLM_MODEL: SCRIPTED_MODEL,
    WORKER_PORT: '0',
    CHECK_TIMEOUT_MS: '60000',
    ...options.workerEnv,
  };
  const workers = Array.from({ length: options.workers }, (_, i) =>
    spawnCli(['worker'], { ...workerEnv, DATA_DIR: path.join(tmp, `worker-${i + 1}`) }, '"worker started"'),
  );
  const processes = [api, ...workers];
  await Promise.all(processes.map((p) => p.ready));
  const request = (method: string, url: string, body?: unknown, token = API_TOKEN) =>
    fetch(`${apiUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  return {
    apiUrl,
    prefix,
    workerEnv,
    processes,
    request,
    waitUntilDone: (id) =>
      eventually(
        `operation ${id} is done`,
        async () => {
          const op = (await (await request('GET', `/v1/operations/${id}`)).json()) as Operation;
          return op.status === 'awaiting_approval' || FINAL_STATUSES.has(op.status) ? op : undefined;
        },
        { timeoutMs: RUN_TIMEOUT_MS - 30_000, intervalMs: 200 },
      ),
    async stop() {
      for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
      await Promise.all(processes.map((p) => p.exited));
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

describe('a split deployment whose workers hold no App key and no model key', () => {
  const gh = new FakeGitHub();
  let model: ScriptedServer;
  let d: Deployment;
  let redis: Redis;
  /** The operation the second test runs to its pull request. */
  let published = '';

  beforeAll(async () => {
    await gh.start();
    model = await startScriptedServer(slugifyFixScript());
    await gh.createRepository('acme/slugify', { fromDir: SAMPLE_DIR });
    await gh.createRepository('acme/other', { files: { 'README.md': 'other\n' } });
    d = await deploy(gh, model, { workers: 2 });
    redis = new Redis(inject('redisUrl'));
  }, 180_000);

  afterAll(async () => {
    redis?.disconnect();
    await d?.stop();
    await model?.close();
    await gh.stop();
  });

  it('gives the workers only Redis, the API address, WORKER_TOKEN and non-secret settings', () => {
    expect(Object.keys(d.workerEnv).filter((k) => LONG_LIVED.test(k))).toEqual([]);
    // None of them warns that it holds a key it should not.
    for (const p of d.processes.slice(1)) expect(p.output()).not.toMatch(/a worker should not hold it/);
  });

  it(
    'runs /debug to a pull request with broker-minted tokens and gateway-metered model calls',
    async () => {
      const res = await d.request('POST', '/v1/operations', {
        type: 'debug',
        repo: 'acme/slugify',
        description: 'slugify keeps spaces',
      });
      expect(res.status).toBe(202);
      const { id } = (await res.json()) as { id: string };
      published = id;
      const op = await d.waitUntilDone(id);
      expect(op.status, op.error).toBe('awaiting_approval');
      expect(op.pullRequest?.number).toBe(gh.pulls('acme/slugify')[0]?.number);

      // Every token was minted (by the API, the only holder of the key) for the one repository.
      expect(gh.tokenRequests.length).toBeGreaterThan(0);
      for (const t of gh.tokenRequests) expect(t.repositories).toEqual(['slugify']);
      // The job's tokens are revoked as it ends (just after its status changed).
      await eventually('the job’s tokens are revoked', () => (gh.liveTokens().length === 0 ? true : undefined), {
        timeoutMs: 30_000,
        intervalMs: 100,
      });

      // Every model call reached the model server with the gateway's key.
      expect(model.requests).toHaveLength(7);
      for (const r of model.requests) expect(keyOf(r)).toBe(MODEL_KEY);
      // The gateway's meter and the operation's own record agree.
      const meter = await redis.hgetall(`${d.prefix}:gateway:{${id}}`);
      expect(Number(meter.calls)).toBe(7);
      expect(op.usage.modelCalls).toBe(7);
      expect(Number(meter.costUsd)).toBeCloseTo(7 * CALL_USD, 9);
      expect(op.usage.costUsd).toBeCloseTo(Number(meter.costUsd), 9);
    },
    RUN_TIMEOUT_MS,
  );

  it('WORKER_TOKEN opens the internal routes only, and API_TOKEN never opens them', async () => {
    // The REST API refuses the worker token…
    expect((await d.request('GET', '/v1/operations', undefined, WORKER_TOKEN)).status).toBe(401);
    // …and the broker refuses the API token.
    const ask = { repo: 'acme/slugify', holder: 'x/run' };
    expect((await d.request('POST', '/internal/v1/github/tokens', ask, API_TOKEN)).status).toBe(401);
    // The gateway takes neither as a job credential.
    for (const key of [API_TOKEN, WORKER_TOKEN]) {
      const call = await fetch(`${d.apiUrl}/internal/v1/model/anthropic/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ model: SCRIPTED_MODEL, max_tokens: 10, messages: [] }),
      });
      expect(call.status).toBe(401);
    }
  });

  it('mints tokens only for a live operation on its own repository', async () => {
    const ask = (holder: string, repo = 'acme/slugify') =>
      d.request('POST', '/internal/v1/github/tokens', { repo, holder }, WORKER_TOKEN);
    // A live operation's job gets its token through the broker; only its own repository.
    const live = await ask(`${published}/revise`);
    expect(live.status).toBe(200);
    expect(gh.tokenRequests.at(-1)?.repositories).toEqual(['slugify']);
    expect(
      (
        await d.request(
          'DELETE',
          '/internal/v1/github/tokens',
          { repo: 'acme/slugify', holder: `${published}/revise` },
          WORKER_TOKEN,
        )
      ).status,
    ).toBe(204);
    expect(gh.liveTokens()).toEqual([]);
    expect((await d.request('POST', `/v1/operations/${published}/reject`, {})).status).toBe(200);
    const cases: [string, { repo: string; holder: string }, number, RegExp][] = [
      ['a process holder', { repo: 'acme/slugify', holder: '' }, 400, /holder/],
      ['no operation', { repo: 'acme/slugify', holder: 'nosuchop/run' }, 403, /names no operation/],
      [
        'another repository',
        { repo: 'acme/other', holder: `${published}/run` },
        403,
        /is not an operation on acme\/other/,
      ],
      ['an ended operation', { repo: 'acme/slugify', holder: `${published}/run` }, 403, /ended \(rejected\)/],
    ];
    const before = gh.tokenRequests.length;
    for (const [what, body, status, reason] of cases) {
      const answer = await d.request('POST', '/internal/v1/github/tokens', body, WORKER_TOKEN);
      expect(answer.status, what).toBe(status);
      expect(JSON.stringify(await answer.json()), what).toMatch(reason);
    }
    expect(gh.tokenRequests.length).toBe(before);
    // The model gateway refuses the ended operation's credential too.
    const ended = await fetch(`${d.apiUrl}/internal/v1/model/anthropic/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': jobCredential(WORKER_TOKEN, published), 'content-type': 'application/json' },
      body: JSON.stringify({ model: SCRIPTED_MODEL, max_tokens: 10, messages: [] }),
    });
    expect(ended.status).toBe(403);
    expect(await ended.text()).toContain('has ended');
  });
});

describe('a worker that spends past its operation budget through the gateway', () => {
  const gh = new FakeGitHub();
  let model: ScriptedServer;
  let d: Deployment;

  beforeAll(async () => {
    await gh.start();
    model = await startScriptedServer(slugifyFixScript());
    await gh.createRepository('acme/slugify', { fromDir: SAMPLE_DIR });
    // The worker believes the model is free, so its own budget never stops it (a worker that
    // under-reports its spend); only the gateway's meter, on the API's prices, can.
    d = await deploy(gh, model, {
      workers: 1,
      workerEnv: {
        LLM_PRICES: JSON.stringify({ [SCRIPTED_MODEL]: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }),
      },
    });
  }, 180_000);

  afterAll(async () => {
    await d?.stop();
    await model?.close();
    await gh.stop();
  });

  it(
    'is refused by the gateway, and the operation stops with a budget reason',
    async () => {
      // Two calls fit under the limit; the third would start with the limit already passed.
      const costUsd = 1.5 * CALL_USD;
      const res = await d.request('POST', '/v1/operations', {
        type: 'debug',
        repo: 'acme/slugify',
        description: 'slugify keeps spaces',
        budget: { costUsd },
      });
      const { id } = (await res.json()) as { id: string };
      const op = await d.waitUntilDone(id);
      expect(op.status).toBe('failed');
      expect(op.error).toMatch(/^budget exhausted: .*the model gateway refused the call: cost budget used/);
      expect(model.requests).toHaveLength(2);
      expect(gh.pulls('acme/slugify')).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});
