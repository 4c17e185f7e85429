import { inject } from 'vitest';

/**
 * The variables that point a Pullwright process at the run's Redis: REDIS_URL, or
 * REDIS_CLUSTER_NODES when the Cluster suite (test/cluster) runs the same tests.
 */
export function redisEnv(): { REDIS_URL: string } | { REDIS_CLUSTER_NODES: string } {
  const nodes = inject('redisClusterNodes');
  return nodes ? { REDIS_CLUSTER_NODES: nodes } : { REDIS_URL: inject('redisUrl') };
}
