import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type RedisServerHandle, startRedisServer } from '@pullwright/queue';
import { eventually } from '@pullwright/testing/eventually';
import { Redis } from 'ioredis';

const run = promisify(execFile);

interface RedisClusterHandle {
  /** `127.0.0.1:port,…`: the REDIS_CLUSTER_NODES value. */
  nodes: string;
  stop(): Promise<void>;
}

/**
 * A real Redis Cluster of `primaries` nodes on loopback ports, no replicas: each a private
 * redis-server with `--cluster-enabled yes`, joined by `redis-cli --cluster create`, and
 * ready once every node reports `cluster_state:ok` (the slots are assigned and agreed).
 */
export async function startRedisCluster(primaries = 3): Promise<RedisClusterHandle> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pw-cluster-'));
  const servers: RedisServerHandle[] = [];
  const stop = async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < primaries; i++) {
      servers.push(
        await startRedisServer({
          args: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            path.join(dir, `nodes-${i}.conf`),
            '--cluster-node-timeout',
            '5000',
          ],
        }),
      );
    }
    const addresses = servers.map((s) => `127.0.0.1:${s.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
    for (const server of servers) await waitForClusterOk(server.url);
    return { nodes: addresses.join(','), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function waitForClusterOk(url: string): Promise<void> {
  const client = new Redis(url);
  try {
    await eventually(
      `cluster node ${url} reports cluster_state:ok`,
      async () => /cluster_state:ok/.test(String(await client.cluster('INFO'))),
      { timeoutMs: 20_000, intervalMs: 100 },
    );
  } finally {
    client.disconnect();
  }
}
