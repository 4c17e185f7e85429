import type { ModelUsage } from '@pullwright/agent';
import type { RedisClient, RedisKeys } from '@pullwright/queue';

/** What the gateway counted for one subject: model calls, tokens (cache included, as budgets count them), cost. */
interface MeteredSpend {
  calls: number;
  tokens: number;
  costUsd: number;
}

/**
 * The model gateway's own count of each subject's spend, in Redis so every API replica adds
 * to one total. It is counted from the provider's answers as they pass the gateway: a worker
 * that under-reports its usage does not lower it.
 */
export class GatewayMeter {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    /** RETENTION_DAYS: the meter lives as long as the operation's record. */
    private readonly ttlS: number,
  ) {}

  async spent(subject: string): Promise<MeteredSpend> {
    const h = await this.redis.hgetall(this.keys.gatewayMeter(subject));
    return { calls: Number(h.calls ?? 0), tokens: Number(h.tokens ?? 0), costUsd: Number(h.costUsd ?? 0) };
  }

  async record(subject: string, usage: ModelUsage, costUsd: number): Promise<void> {
    const key = this.keys.gatewayMeter(subject);
    const tokens = usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    await this.redis
      .multi()
      .hincrby(key, 'calls', 1)
      .hincrby(key, 'tokens', tokens)
      .hincrbyfloat(key, 'costUsd', costUsd)
      .expire(key, this.ttlS)
      .exec();
  }
}
