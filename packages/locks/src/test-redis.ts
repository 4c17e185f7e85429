import { randomUUID } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { afterEach, beforeEach, inject } from 'vitest';
import type { RedisClient } from './lock-scripts.ts';

export interface TestRedis {
  /** Fresh per test, so tests never see each other's keys and nothing needs flushing. */
  prefix: string;
  /** A new connection to the run's private redis-server (or Cluster, in the Cluster suite), closed after the test. */
  connect(): RedisClient;
  /** Keys matching `pattern` on every primary (KEYS on a Cluster client asks one node only). */
  keys(pattern: string): Promise<string[]>;
}

/** Registers per-test hooks; call once at the top of a test file. */
export function testRedis(): TestRedis {
  const clients: RedisClient[] = [];
  const context: TestRedis = {
    prefix: '',
    connect() {
      const nodes = inject('redisClusterNodes');
      const client = nodes
        ? new Cluster(nodes.split(','), { redisOptions: { maxRetriesPerRequest: 1 } })
        : new Redis(inject('redisUrl'), { maxRetriesPerRequest: 1 });
      clients.push(client);
      return client;
    },
    async keys(pattern) {
      const client = context.connect();
      await client.ping(); // a Cluster client knows its nodes once connected
      const nodes = client instanceof Cluster ? client.nodes('master') : [client];
      return (await Promise.all(nodes.map((node) => node.keys(pattern)))).flat();
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
