import { createHash } from 'node:crypto';
import type { BaselineCheck } from '@pullwright/agent';
import type { RedisClient } from '@pullwright/queue';

/** A base commit's check results do not change: a week covers a busy base branch's reuse. */
const BASELINE_TTL_S = 7 * 24 * 3600;

/**
 * How each check does on the base commit, before any change. Cached per repository, base
 * sha and check commands, so operations on the same base run them once and only failures
 * the change introduces count against it.
 */
export class BaselineChecks {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  key(repo: string, baseSha: string, commands: Record<string, string>): string {
    const digest = createHash('sha256')
      .update(JSON.stringify(Object.entries(commands).sort()))
      .digest('hex')
      .slice(0, 16);
    // v2: entries carry the failure fingerprint that decides "the same failure".
    return `${this.prefix}:baseline:v2:{${repo}}:${baseSha}:${digest}`;
  }

  /** The cached baseline, or `compute()` (run on a checkout of the base commit) stored for next time. */
  async get(
    repo: string,
    baseSha: string,
    commands: Record<string, string>,
    compute: () => Promise<Record<string, BaselineCheck>>,
  ): Promise<{ baseline: Record<string, BaselineCheck>; cached: boolean }> {
    const key = this.key(repo, baseSha, commands);
    const hit = await this.redis.get(key);
    if (hit) return { baseline: JSON.parse(hit) as Record<string, BaselineCheck>, cached: true };
    const baseline = await compute();
    await this.redis.set(key, JSON.stringify(baseline), 'EX', BASELINE_TTL_S);
    return { baseline, cached: false };
  }
}
