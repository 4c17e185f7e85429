import { randomBytes } from 'node:crypto';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { inject, test } from 'vitest';

interface RedisFixtures {
  /**
   * Fresh per test, so tests never see each other's keys and nothing is flushed (the server
   * may be shared, see test/global-setup.ts). Its keys are deleted after the test.
   */
  prefix: string;
  /**
   * Another connection to the run's private redis-server — or to its 3-primary Cluster when
   * the Cluster suite runs the same tests (`redisClusterNodes`) — closed after the test.
   */
  connect: (options?: RedisOptions) => Redis | Cluster;
  /** A connection as `connect` gives, closed after the test. */
  redis: Redis | Cluster;
  /** Keys matching `pattern` on every primary (KEYS on a Cluster client asks one node only). */
  keys: (pattern: string) => Promise<string[]>;
}

/** The run's server, or its Cluster (the Cluster suite's global setup provides the nodes). */
function connectTo(options: RedisOptions = {}): Redis | Cluster {
  const nodes = inject('redisClusterNodes');
  return nodes
    ? new Cluster(nodes.split(','), { redisOptions: { maxRetriesPerRequest: 1, ...options } })
    : new Redis(inject('redisUrl'), { maxRetriesPerRequest: 1, ...options });
}

/** Every primary a client reaches: itself, or a Cluster's masters. */
async function primariesOf(client: Redis | Cluster): Promise<Redis[]> {
  if (!(client instanceof Cluster)) return [client];
  await client.ping(); // a Cluster client knows its nodes once connected
  return client.nodes('master');
}

/** Deletes what a test wrote: every key holding its prefix (also BullMQ's `{prefix}:bull:` keys), on every primary. */
async function deleteKeys(prefix: string): Promise<void> {
  const client = connectTo({ lazyConnect: true });
  try {
    for (const node of await primariesOf(client)) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
        cursor = next;
        // One key at a time on a Cluster: a multi-key UNLINK must stay in one slot.
        for (const key of keys) await node.unlink(key);
      } while (cursor !== '0');
    }
  } finally {
    client.disconnect();
  }
}

/**
 * `redisTest` is vitest's `test` with Redis fixtures: the one way a test gets Redis (as
 * bullmq's tests do with a fresh queue name and their cleanup helpers). Destructure what the
 * test needs: `redisTest('…', async ({ redis, prefix }) => …)`.
 */
export const redisTest = test.extend<RedisFixtures>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  prefix: async ({}, use) => {
    const prefix = `t${randomBytes(6).toString('hex')}`;
    await use(prefix);
    await deleteKeys(prefix);
  },
  // biome-ignore lint/correctness/noEmptyPattern: as above; this fixture needs no other.
  connect: async ({}, use) => {
    const clients: Array<Redis | Cluster> = [];
    await use((options) => {
      const client = connectTo(options);
      clients.push(client);
      return client;
    });
    await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
  },
  redis: async ({ connect }, use) => use(connect()),
  keys: async ({ connect }, use) =>
    use(async (pattern) => {
      const nodes = await primariesOf(connect());
      return (await Promise.all(nodes.map((node) => node.keys(pattern)))).flat();
    }),
});
