import { createHash } from 'node:crypto';
import type { RedisClient } from '@pullwright/queue';

/**
 * Remembers signed requests by what the signature covers, so a captured request sent again
 * is handled once. An id the sender adds outside the signature (GitHub's X-GitHub-Delivery)
 * can be changed by whoever replays the request; the bytes cannot.
 */
export class ReplayGuard {
  constructor(
    private readonly redis: RedisClient,
    /** First segment of every key (REDIS_PREFIX). */
    private readonly prefix: string,
  ) {}

  /** True the first time these signed parts arrive within `ttlS`; false for a replay. */
  async first(scope: string, signed: ReadonlyArray<string | Buffer>, ttlS: number): Promise<boolean> {
    return (await this.redis.set(this.#key(scope, signed), '1', 'EX', ttlS, 'NX')) === 'OK';
  }

  /** Forgets a request whose handling failed, so the sender's retry is handled. */
  async forget(scope: string, signed: ReadonlyArray<string | Buffer>): Promise<void> {
    await this.redis.del(this.#key(scope, signed));
  }

  #key(scope: string, signed: ReadonlyArray<string | Buffer>): string {
    const hash = createHash('sha256');
    // Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
    for (const part of signed) hash.update(`${Buffer.byteLength(part)}:`).update(part);
    return `${this.prefix}:replay:${scope}:${hash.digest('hex')}`;
  }
}
