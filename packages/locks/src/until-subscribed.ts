import type { Redis } from 'ioredis';
import { lockKeys } from './lock-keys.ts';

/**
 * Test helper: resolves once `count` waiters listen on the repository's release channel, so a
 * test releases after the waiters are in place instead of after a guessed sleep.
 */
export async function untilSubscribed(redis: Redis, prefix: string, repo: string, count: number): Promise<void> {
  const channel = lockKeys(prefix, repo).released;
  for (;;) {
    const [, listening] = (await redis.pubsub('NUMSUB', channel)) as [string, number];
    if (Number(listening) >= count) return;
    await new Promise((r) => setTimeout(r, 5));
  }
}
