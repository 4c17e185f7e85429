import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { inject, test } from 'vitest';

export interface RedisFixtures {
  /**
   * Fresh per test, so tests never see each other's keys and nothing is flushed (the server
   * may be shared, see test/global-setup.ts). Its keys are deleted after the test.
   */
  prefix: string;
  /** Another connection to the run's private redis-server (blocking reads, BullMQ); closed after the test. */
  connect: (options?: RedisOptions) => Redis;
  /** A connection to the run's private redis-server, closed after the test. */
  redis: Redis;
}

/** Deletes what a test wrote: every key holding its prefix (also BullMQ's `{prefix}:bull:` keys). */
async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
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
    const clients: Redis[] = [];
    await use((options) => {
      const client = new Redis(inject('redisUrl'), { maxRetriesPerRequest: 1, ...options });
      clients.push(client);
      return client;
    });
    await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
  },
  redis: async ({ connect }, use) => use(connect()),
});
