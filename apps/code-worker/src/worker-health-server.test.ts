import { randomBytes } from 'node:crypto';
import { loadConfig } from '@pullwright/core';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { RunningWorker } from './start-worker.ts';
import { startWorkerHealthServer } from './worker-health-server.ts';

const redis = new Redis(inject('redisUrl'));
afterAll(() => redis.disconnect());
const METRICS_TOKEN = 'metrics-token-0123456789';

describe('worker health server', () => {
  it('is ready while the worker takes jobs, 503 once it stopped, and guards /metrics with METRICS_TOKEN', async () => {
    const config = loadConfig({ WORKER_PORT: '0', METRICS_TOKEN });
    const connection = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
    const bull = new Worker(`q${randomBytes(4).toString('hex')}`, async () => undefined, { connection });
    await bull.waitUntilReady();
    const running = { worker: bull, runningJobs: () => 0 } as unknown as RunningWorker;
    const health = await startWorkerHealthServer({ config, redis }, running);
    try {
      expect((await fetch(`${health.url}/healthz`)).status).toBe(200);
      expect(await (await fetch(`${health.url}/readyz`)).json()).toEqual({ ok: true, redis: 'up', jobs: 0 });
      expect((await fetch(`${health.url}/metrics`)).status).toBe(401);
      const metrics = await fetch(`${health.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(await metrics.text()).toMatch(/^pullwright_worker_jobs_running 0$/m);
      await bull.close();
      const stopped = await fetch(`${health.url}/readyz`);
      expect(stopped.status).toBe(503);
      expect(await stopped.json()).toEqual({
        error: { code: 'unavailable', message: 'the worker is not taking jobs' },
      });
    } finally {
      await health.close();
      connection.disconnect();
    }
  });

  it('is 503 "redis is unreachable" while the worker runs but Redis does not answer', async () => {
    const config = loadConfig({ WORKER_PORT: '0' });
    const connection = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
    const bull = new Worker(`q${randomBytes(4).toString('hex')}`, async () => undefined, { connection });
    await bull.waitUntilReady();
    // A client whose server went away: its ping fails.
    const gone = new Redis(inject('redisUrl'), { lazyConnect: true, enableOfflineQueue: false });
    const running = { worker: bull, runningJobs: () => 0 } as unknown as RunningWorker;
    const health = await startWorkerHealthServer({ config, redis: gone }, running);
    try {
      const res = await fetch(`${health.url}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ error: { code: 'unavailable', message: 'redis is unreachable' } });
    } finally {
      await health.close();
      await bull.close();
      connection.disconnect();
      gone.disconnect();
    }
  });
});
