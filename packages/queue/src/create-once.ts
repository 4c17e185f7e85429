import { PullwrightError } from '@pullwright/core';
import type { RedisClient } from './redis-client.ts';

/** How long a key remembers what it created: a client retrying within a day gets the first record. */
const IDEMPOTENCY_TTL_S = 24 * 3600;

/**
 * Creates a record once per idempotency key: the first caller claims the key and creates; a
 * caller with the same key gets the first record back (`created: false`), waiting briefly
 * while the first is still creating. A failed creation frees the key for a retry.
 */
export async function createOnce<T extends { id: string }>(
  redis: RedisClient,
  idemKey: string,
  create: () => Promise<T>,
  get: (id: string) => Promise<T>,
): Promise<{ value: T; created: boolean }> {
  const claimed = await redis.set(idemKey, 'pending', 'EX', IDEMPOTENCY_TTL_S, 'NX');
  if (claimed === 'OK') {
    try {
      const value = await create();
      await redis.set(idemKey, value.id, 'EX', IDEMPOTENCY_TTL_S);
      return { value, created: true };
    } catch (err) {
      await redis.del(idemKey);
      throw err;
    }
  }
  // A concurrent first request may still be creating: wait briefly for its id.
  for (let i = 0; i < 50; i++) {
    const id = await redis.get(idemKey);
    if (id && id !== 'pending') return { value: await get(id), created: false };
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new PullwrightError('conflict', 'a request with this Idempotency-Key is still being processed');
}
