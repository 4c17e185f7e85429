import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FINAL_STATUSES, type Operation } from '@pullwright/core';
import { LocalForge } from '@pullwright/forge';
import { bullPrefix, CODE_OPERATIONS_QUEUE, type RedisServerHandle, startRedisServer } from '@pullwright/queue';
import { eventually } from '@pullwright/testing/eventually';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, spawnCli } from './support/cli-process.ts';
import {
  type ComposeService,
  localPath,
  readCompose,
  serviceCommand,
  serviceEnv,
  type Translation,
} from './support/compose-environment.ts';
import { freePort } from './support/free-port.ts';
import { createSampleRepo } from './support/sample-repo.ts';

/**
 * The split topology, as docker-compose.yml defines it, without Docker: the `secrets`
 * one-shot, Redis with the compose redis.conf and password, one API and two workers as
 * separate processes, each with its compose environment and its own data and workspace
 * directories, sharing only Redis, the forge volume and the secrets volume.
 * The only additions to the compose environment: free ports instead of 3000/3001 (tests run
 * side by side), and short job locks so a killed worker's job is resumed in ~2 s, not ~90 s.
 */
const TEST_ONLY = { JOB_LOCK_MS: '1500', JOB_STALLED_INTERVAL_MS: '500' };
/**
 * The .env of a machine with a recorded model: the workers replay it for any request. (With
 * nothing set they would be in demo mode, which refuses every request but the seeded demo.)
 */
const DOT_ENV: Record<string, string> = {
  LLM_PROVIDER: 'replay',
  // The image's own copy of the bundled recording (a container path: /app is the repository).
  REPLAY_FILE: '/app/apps/cli/demo/debug-slugify.replay.json',
};

describe('compose topology: one API and two workers as separate processes', () => {
  const compose = readCompose();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'pw-compose-'));
  const volumes = Object.fromEntries(Object.keys(compose.volumes).map((v) => [v, path.join(tmp, 'volumes', v)]));
  /** Where the API listens: the workers' INTERNAL_API_URL (`http://api:3000` on the compose network). */
  let apiAddress = '';
  const translation = (instance: string, redisAddress: string): Translation => ({
    hosts: { redis: redisAddress, api: apiAddress },
    volumes,
    instanceRoot: path.join(tmp, instance),
  });
  let redisServer: RedisServerHandle;
  let redis: Redis;
  let api: CliProcess;
  let apiUrl: string;
  let token: string;
  const workers: CliProcess[] = [];
  const workerUrls: string[] = [];
  let forge: LocalForge;
  let dotEnv: Record<string, string>;

  const request = (method: string, url: string, body?: unknown) =>
    fetch(`${apiUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const operation = async (id: string) => (await (await request('GET', `/v1/operations/${id}`)).json()) as Operation;
  const waitUntil = (id: string, done: (op: Operation) => boolean, timeoutMs = 60_000) =>
    eventually(
      `operation ${id} is done`,
      async () => {
        const op = await operation(id);
        return done(op) ? op : undefined;
      },
      { timeoutMs, intervalMs: 200 },
    );

  beforeAll(async () => {
    // 1. secrets: the one-shot service's command, as compose runs it.
    const secrets = compose.services.secrets!;
    const command = serviceCommand(secrets, translation('secrets-1', ''));
    expect(command.slice(0, 2)).toEqual(['node', 'apps/cli/bin/pullwright.js']);
    const made = spawnSync(process.execPath, command.slice(1), {
      cwd: path.resolve(import.meta.dirname, '..'),
      encoding: 'utf8',
    });
    expect(made.status, made.stderr).toBe(0);

    // 2. redis: the compose redis.conf plus the included password file.
    const redisService = compose.services.redis!;
    const [, conf, includeFlag, include] = redisService.command!;
    expect(includeFlag).toBe('--include');
    const redisT = translation('redis-1', '');
    const password = readFileSync(path.join(volumes.secrets!, 'redis-password'), 'utf8').trim();
    redisServer = await startRedisServer({
      configFile: localPath(conf!, redisService, redisT),
      args: ['--include', localPath(include!, redisService, redisT)],
      password,
    });
    redis = new Redis(redisServer.url);
    expect(await redis.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    // Without the password, Redis refuses: untrusted code that reaches it cannot read approvals.
    const anonymous = new Redis(`redis://127.0.0.1:${redisServer.port}`, {
      lazyConnect: true,
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    anonymous.on('error', () => undefined);
    await anonymous.connect();
    await expect(anonymous.get('anything')).rejects.toThrow(/NOAUTH/);
    anonymous.disconnect();

    // 3. the API and two worker replicas, each with its compose environment.
    const redisAddress = `127.0.0.1:${redisServer.port}`;
    const apiService = compose.services.api!;
    const apiPort = await freePort();
    apiAddress = `127.0.0.1:${apiPort}`;
    apiUrl = `http://${apiAddress}`;
    // Where people reach the API: every process builds its links on it.
    dotEnv = { ...DOT_ENV, PUBLIC_URL: apiUrl };
    const apiEnv = serviceEnv(apiService, dotEnv, translation('api-1', redisAddress));
    apiEnv.PORT = String(apiPort);
    token = readFileSync(apiEnv.API_TOKEN_FILE!, 'utf8').trim();
    api = spawnCli(['api'], apiEnv, '"api listening"');

    const workerService = compose.services.worker!;
    const replicas = workerService.deploy?.replicas ?? 1;
    expect(replicas).toBe(2);
    for (let i = 1; i <= replicas; i++) {
      const env = serviceEnv(workerService, dotEnv, translation(`worker-${i}`, redisAddress));
      env.WORKER_PORT = String(await freePort());
      workerUrls.push(`http://127.0.0.1:${env.WORKER_PORT}`);
      workers.push(spawnCli(['worker'], { ...env, ...TEST_ONLY }, '"worker started"'));
    }
    await Promise.all([api.ready, ...workers.map((w) => w.ready)]);
    forge = new LocalForge({ root: apiEnv.FORGE_DIR!, redis, keyPrefix: 'pw', webUrl: apiUrl });
  }, 60_000);

  afterAll(async () => {
    for (const p of [api, ...workers])
      if (p && p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all([api, ...workers].filter(Boolean).map((p) => p.exited));
    redis?.disconnect();
    await redisServer?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('gives each process what it needs and nothing more', () => {
    const env = (name: string) => compose.services[name]!.environment ?? {};
    const secretNames = (s: ComposeService) =>
      Object.keys(s.environment ?? {}).filter((k) => /SLACK|GITHUB_WEBHOOK|API_TOKEN/.test(k));
    expect(secretNames(compose.services.worker!)).toEqual([]);
    // The long-lived keys are the API's alone (it brokers tokens and model calls); the worker
    // refuses to start with one (PRODUCTION_MODE) and reaches the API by its service name.
    const longLived = (name: string) =>
      Object.keys(env(name)).filter((k) => /ANTHROPIC_API_KEY|OPENAI_API_KEY|GITHUB_APP_PRIVATE_KEY/.test(k));
    expect(longLived('worker')).toEqual([]);
    expect(longLived('api').sort()).toEqual(['ANTHROPIC_API_KEY', 'GITHUB_APP_PRIVATE_KEY', 'OPENAI_API_KEY']);
    expect(Object.keys(env('api')).filter((k) => /LLM_PROVIDER|LLM_MODEL|REPLAY/.test(k))).toEqual([]);
    expect(env('worker').INTERNAL_API_URL).toBe('http://api:3000');
    expect(env('worker').PRODUCTION_MODE).toMatch(/^\$\{PRODUCTION_MODE:-true\}$/);
    for (const name of ['api', 'worker']) {
      expect(env(name)).toMatchObject({
        VERIFICATION_KEY_FILE: '/run/pullwright/verification-key',
        WORKER_TOKEN_FILE: '/run/pullwright/worker-token',
        FORGE_DIR: '/srv/forge',
      });
      expect(compose.services[name]!.volumes).toEqual(
        expect.arrayContaining(['forge:/srv/forge', 'secrets:/run/pullwright:ro']),
      );
    }
    // The API token's volume is the API's alone.
    expect(compose.services.api!.volumes).toContain('api-secrets:/run/pullwright-api:ro');
    expect(compose.services.worker!.volumes!.some((v) => v.startsWith('api-secrets:'))).toBe(false);
  });

  it('serves health on the API and on every worker', async () => {
    for (const url of [apiUrl, ...workerUrls]) {
      expect((await fetch(`${url}/healthz`)).status, url).toBe(200);
      expect((await fetch(`${url}/readyz`)).status, url).toBe(200);
    }
    const metrics = await (await fetch(`${workerUrls[0]}/metrics`)).text();
    expect(metrics).toMatch(/^pullwright_worker_jobs_running \d+$/m);
  });

  it('runs an operation on a worker; the API serves its transcript and verifies its signed receipt', async () => {
    const repo = await createSampleRepo(forge, 'compose/slugify');
    const res = await request('POST', '/v1/operations', { type: 'debug', repo, description: 'slugify keeps spaces' });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const op = await waitUntil(id, (o) => o.status === 'awaiting_approval' || FINAL_STATUSES.has(o.status));
    expect(op.status, op.error).toBe('awaiting_approval');
    // The worker recorded the pull request's link on PUBLIC_URL, and the API serves it there.
    expect(op.pullRequest!.url.startsWith(`${apiUrl}/forge/`), op.pullRequest!.url).toBe(true);
    expect((await request('GET', op.pullRequest!.url.slice(apiUrl.length))).status).toBe(200);

    const transcript = await request('GET', `/v1/operations/${id}/transcript`);
    expect(transcript.status).toBe(200);
    const entries = (await transcript.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string });
    expect(entries[0]!.kind).toBe('task');
    expect(entries.some((e) => e.kind === 'tool')).toBe(true);

    const verification = await request('GET', `/v1/operations/${id}/verification`);
    expect(await verification.json()).toMatchObject({
      valid: true,
      block: { operation: id, headSha: op.pullRequest!.headSha },
    });
  });

  it('finishes a SIGKILLed worker’s job on the other worker, with one pull request', async () => {
    const repo = await createSampleRepo(forge, 'compose/killed');
    const queue = new Queue(CODE_OPERATIONS_QUEUE, { connection: redis, prefix: bullPrefix('pw') });
    try {
      const res = await request('POST', '/v1/operations', { type: 'debug', repo, description: 'slugify keeps spaces' });
      const { id } = (await res.json()) as { id: string };
      // The worker that took the job, by the name BullMQ records (`host:pid`).
      const holder = await eventually(
        'a worker takes the job',
        async () => {
          const by = (await queue.getJob(id))?.processedBy;
          return workers.find((w) => by?.endsWith(`:${w.child.pid}`));
        },
        { timeoutMs: 30_000, intervalMs: 20 },
      );
      holder.child.kill('SIGKILL');
      await holder.exited;
      const survivor = workers.find((w) => w !== holder)!;

      const op = await waitUntil(id, (o) => o.status === 'awaiting_approval' || FINAL_STATUSES.has(o.status));
      expect(op.status, op.error).toBe('awaiting_approval');
      const job = await queue.getJob(id);
      expect(job?.processedBy).toMatch(new RegExp(`:${survivor.child.pid}$`));
      expect(job?.stalledCounter).toBeGreaterThanOrEqual(1);
      const prs = await redis.keys(`pw:forge:{${repo}}:pr:*`);
      expect(prs.filter((k) => /:pr:\d+$/.test(k))).toHaveLength(1);
      const transcript = await request('GET', `/v1/operations/${id}/transcript`);
      expect(transcript.status).toBe(200);
    } finally {
      await queue.close();
    }
  });
});
