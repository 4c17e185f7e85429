import { Cluster, type Redis } from 'ioredis';
import { lockKeys } from './lock-keys.ts';

/**
 * Test helper: resolves once `count` waiters listen on the repository's release channel, so a
 * test releases after the waiters are in place instead of after a guessed sleep. On a
 * Cluster, subscribers sit on any node: their counts are summed over every primary.
 */
export async function untilSubscribed(
  redis: Redis | Cluster,
  prefix: string,
  repo: string,
  count: number,
): Promise<void> {
  const channel = lockKeys(prefix, repo).released;
  if (redis instanceof Cluster) await redis.ping();
  const nodes = redis instanceof Cluster ? [...redis.nodes('master'), ...redis.nodes('slave')] : [redis];
  for (;;) {
    let listening = 0;
    for (const node of nodes) {
      const [, n] = (await node.pubsub('NUMSUB', channel)) as [string, number];
      listening += Number(n);
    }
    if (listening >= count) return;
    await new Promise((r) => setTimeout(r, 5));
  }
}
