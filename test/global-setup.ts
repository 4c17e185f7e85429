import { startRedisServer } from '@pullwright/queue';
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';

/**
 * One private redis-server for the whole run (or REDIS_URL when set); every test uses a
 * fresh key prefix, so nothing is flushed and nothing leaks between tests.
 */
export default async function setup(project: TestProject) {
  project.provide('redisClusterNodes', '');
  if (process.env.REDIS_URL) {
    project.provide('redisUrl', process.env.REDIS_URL);
    return;
  }
  const server = await startRedisServer();
  project.provide('redisUrl', server.url);
  return () => server.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    /** `host:port,…` in the Cluster suite (test/cluster), else empty. */
    redisClusterNodes: string;
  }
}
