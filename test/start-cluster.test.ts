import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Operation } from '@pullwright/core';
import { eventually } from '@pullwright/testing/eventually';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, spawnCli } from './support/cli-process.ts';
import { startRedisCluster } from './support/redis-cluster.ts';

/**
 * `npm start` on a Redis Cluster (README: Cluster supported): a real 3-primary Cluster on
 * loopback ports, and the all-in-one process started with REDIS_CLUSTER_NODES only.
 */
describe('npm start with REDIS_CLUSTER_NODES', () => {
  let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
  let start: CliProcess | undefined;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pw-start-cluster-'));
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
  }, 60_000);
  afterAll(async () => {
    if (start && start.child.exitCode === null) {
      start.child.kill('SIGTERM');
      await start.exited;
    }
    await cluster?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('uses the Cluster, starts no private redis-server, and takes the demo operation to a pull request', async () => {
    start = spawnCli(
      ['start'],
      {
        REDIS_CLUSTER_NODES: cluster.nodes,
        REDIS_PREFIX: 'startcluster',
        DATA_DIR: dataDir,
        PORT: '0',
        SANDBOX: 'none',
        SHUTDOWN_GRACE_MS: '5000',
      },
      'Pullwright is running.',
    );
    await start.ready;
    const out = start.stdout();
    // No private Redis: nothing started, nothing printed or recorded.
    expect(out).not.toMatch(/Redis: /);
    expect(existsSync(path.join(dataDir, 'redis'))).toBe(false);
    const api = /API: +(http:\/\/127\.0\.0\.1:\d+)\/v1\/operations/.exec(out)?.[1];
    const opId = /"opId":"([a-z0-9]+)","msg":"demo operation enqueued"/.exec(start.output())?.[1];
    expect(api && opId, start.output()).toBeTruthy();
    const token = readFileSync(path.join(dataDir, 'api-token'), 'utf8').trim();
    const op = await eventually(
      () => `operation ${opId} has a pull request:\n${start!.output().slice(-2000)}`,
      async () => {
        const res = await fetch(`${api}/v1/operations/${opId}`, { headers: { authorization: `Bearer ${token}` } });
        const found = (await res.json()) as Operation;
        return found.status === 'awaiting_approval' || found.status === 'failed' ? found : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    expect(op.status, op.error).toBe('awaiting_approval');
    expect(op.pullRequest?.number).toBe(1);
  }, 150_000);
});
