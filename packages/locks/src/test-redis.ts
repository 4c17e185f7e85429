import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, inject } from 'vitest';

interface TestRedis {
  /** Fresh per test, so tests never see each other's keys and nothing needs flushing. */
  prefix: string;
  /** A new connection to the run's private redis-server, closed after the test. */
  connect(): Redis;
}

/** Registers per-test hooks; call once at the top of a test file. */
export function testRedis(): TestRedis {
  const clients: Redis[] = [];
  const context: TestRedis = {
    prefix: '',
    connect() {
      const client = new Redis(inject('redisUrl'), { maxRetriesPerRequest: 1 });
      clients.push(client);
      return client;
    },
  };
  beforeEach(() => {
    context.prefix = `t-${randomUUID().slice(0, 8)}`;
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.quit().catch(() => client.disconnect())));
  });
  return context;
}
