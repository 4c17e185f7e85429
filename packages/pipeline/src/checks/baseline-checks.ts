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

  /** The baseline an earlier operation computed for this base and these commands, if any. */
  async stored(
    repo: string,
    baseSha: string,
    commands: Record<string, string>,
  ): Promise<Record<string, BaselineCheck> | undefined> {
    const hit = await this.redis.get(this.key(repo, baseSha, commands));
    return hit ? (JSON.parse(hit) as Record<string, BaselineCheck>) : undefined;
  }

  async store(
    repo: string,
    baseSha: string,
    commands: Record<string, string>,
    baseline: Record<string, BaselineCheck>,
  ): Promise<void> {
    await this.redis.set(this.key(repo, baseSha, commands), JSON.stringify(baseline), 'EX', BASELINE_TTL_S);
  }
}
