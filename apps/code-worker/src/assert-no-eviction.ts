import { type Logger, PullwrightError } from '@pullwright/core';
import type { RedisClient } from '@pullwright/queue';
import { Cluster, type Redis } from 'ioredis';

/**
 * Refuses a Redis that may evict keys. Under any policy but `noeviction`, Redis drops keys
 * when memory runs out: BullMQ job hashes and locks, operation records, file locks. Jobs
 * then vanish or run twice without any error, so a worker will not start on such a Redis.
 * Managed Redis services often disable CONFIG; then the policy cannot be read, and the
 * worker warns and starts (the operator has to check the setting in the provider's console).
 * Returns the policy, or undefined when it could not be read.
 */
export async function assertNoEviction(redis: RedisClient, logger: Logger): Promise<string | undefined> {
  // On a Cluster every primary holds part of the data, so every primary must be noeviction.
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  let policy: string | undefined;
  for (const node of nodes) policy = await policyOf(node, logger);
  return policy;
}

async function policyOf(redis: Redis, logger: Logger): Promise<string | undefined> {
  let reply: unknown;
  try {
    reply = await redis.config('GET', 'maxmemory-policy');
  } catch (err) {
    const message = (err as Error).message ?? '';
    if (!/unknown command|NOPERM|no permissions|disabled/i.test(message)) throw err;
    logger.warn(
      { setting: 'maxmemory-policy' },
      'cannot read maxmemory-policy (CONFIG is disabled on this Redis); make sure it is noeviction',
    );
    return undefined;
  }
  const pairs = Array.isArray(reply) ? reply.map(String) : [];
  const policy = pairs[pairs.indexOf('maxmemory-policy') + 1];
  if (policy === undefined || pairs.indexOf('maxmemory-policy') === -1) {
    logger.warn({ setting: 'maxmemory-policy' }, 'Redis did not report maxmemory-policy; make sure it is noeviction');
    return undefined;
  }
  if (policy !== 'noeviction') {
    throw new PullwrightError(
      'config_invalid',
      `Redis maxmemory-policy is "${policy}"; workers need "noeviction" (an evicting Redis silently drops queued jobs, ` +
        'locks and operations). Set "maxmemory-policy noeviction" in redis.conf or your provider\'s settings.',
      { setting: 'maxmemory-policy', policy },
    );
  }
  return policy;
}
