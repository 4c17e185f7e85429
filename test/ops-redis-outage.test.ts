import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type RedisServerHandle, startRedisServer } from '@pullwright/queue';
import { eventually } from '@pullwright/testing/eventually';
import { afterEach, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';

describe('Redis outage with workers running', () => {
  let sys: TestSystem | undefined;
  let redis: RedisServerHandle | undefined;
  let aofDir: string | undefined;
  afterEach(async () => {
    await sys?.stop().catch(() => undefined);
    await redis?.stop();
    if (aofDir) await rm(aofDir, { recursive: true, force: true });
  });

  it('workers reconnect after Redis restarts: queued operations complete, none is left unfinished or duplicated', async () => {
    // A Redis of this test's own with AOF persistence, stopped and restarted on the same port.
    aofDir = await mkdtemp(path.join(os.tmpdir(), 'pw-aof-'));
    redis = await startRedisServer({ dataDir: aofDir });
    sys = await startTestSystem({ env: { REDIS_URL: redis.url, WORKER_CONCURRENCY: '2' } });
    const forge = sys.runtime.localForge!;
    const repos = await Promise.all(
      ['acme/o1', 'acme/o2', 'acme/o3', 'acme/o4'].map((r) => createSampleRepo(forge, r)),
    );
    const ids: string[] = [];
    for (const repo of repos) {
      const res = await sys.request('POST', '/v1/operations', { type: 'debug', repo, description: `fix ${repo}` });
      expect(res.status).toBe(202);
      ids.push(((await res.json()) as { id: string }).id);
    }
    // Cut Redis while the first jobs run and the rest still wait in the queue.
    await eventually(
      'the first operation leaves the queue',
      async () => (await sys!.runtime.store.get(ids[0]!)).status !== 'queued',
      { timeoutMs: 20_000, intervalMs: 20 },
    );
    const before = await Promise.all(ids.map((id) => sys!.runtime.store.get(id)));
    const queuedAtCut = before.filter((o) => o.status === 'queued').map((o) => o.id);
    expect(queuedAtCut.length).toBeGreaterThanOrEqual(2);
    await redis.stop();
    await new Promise((r) => setTimeout(r, 1500));
    redis = await startRedisServer({ dataDir: aofDir, port: redis.port });

    const ops = await eventually(
      'every operation has ended after the outage',
      async () => {
        // Reads fail while the client reconnects: that is not yet, not an end.
        const read = await Promise.all(ids.map((id) => sys!.runtime.store.get(id))).catch(() => undefined);
        return read?.every((o) => o.status === 'awaiting_approval' || o.status === 'failed') ? read : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    // Nothing is lost: every operation ends with a PR or with a reason; what still waited in
    // the queue at the cut (persisted in the AOF) completes.
    for (const op of ops) {
      expect(op.status === 'awaiting_approval' || (op.status === 'failed' && op.error), op.id).toBeTruthy();
      if (queuedAtCut.includes(op.id)) expect(op.status, op.id).toBe('awaiting_approval');
      if (op.status === 'awaiting_approval') {
        // One PR per operation: the forge numbers PRs per repo, and each repo has one operation.
        expect((await forge.findOpenPullRequest(op.repo, op.branch!))?.number).toBe(1);
      }
    }
  }, 90_000);
});
