import type { TestProject } from 'vitest/node';
import { startRedisCluster } from '../support/redis-cluster.ts';

/**
 * The Cluster suite's Redis: a real 3-primary Redis Cluster on loopback ports. Tests reach
 * it through REDIS_CLUSTER_NODES (see redisEnv); there is no single-node URL to fall back on.
 */
export default async function setup(project: TestProject) {
  const cluster = await startRedisCluster(3);
  project.provide('redisClusterNodes', cluster.nodes);
  project.provide('redisUrl', '');
  return () => cluster.stop();
}
