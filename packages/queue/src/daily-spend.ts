import { defineLuaCommand } from '@pullwright/core';
import type { Result } from 'ioredis';
import type { RedisClient } from './redis-client.ts';
import type { RedisKeys } from './redis-keys.ts';

const addLua = new URL('./add-daily-spend-2.lua', import.meta.url);

declare module 'ioredis' {
  interface RedisCommander<Context> {
    pwAddDailySpend(repoKey: string, allKey: string, usd: string, ttlSeconds: string): Result<string[], Context>;
  }
}

const DAY_MS = 86_400_000;
/** A counter outlives its day by an hour: a process whose clock lags still reads the day it writes. */
const TTL_S = DAY_MS / 1000 + 3600;

/** What was spent on the UTC day of `now`: by one repository, and by all operations. */
export interface DaySpend {
  repositoryUsd: number;
  allUsd: number;
  /** The next UTC midnight (ISO): when both counters start again from zero. */
  resetsAt: string;
}

/**
 * Model spend per UTC day, per repository and across all operations (issue 32's daily
 * caps): every recorded model call adds to both, atomically; every path that spends reads
 * them at its door. Keyed by the day, so a new day starts at zero without a reset job.
 */
export class DailySpend {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly now: () => number = Date.now,
  ) {
    defineLuaCommand(redis, 'pwAddDailySpend', addLua);
  }

  async add(repo: string, usd: number): Promise<void> {
    if (!(usd > 0)) return;
    const day = dayOf(this.now());
    await this.redis.pwAddDailySpend(
      this.keys.dailySpend(day, repo),
      this.keys.dailySpend(day),
      usd.toFixed(8),
      String(TTL_S),
    );
  }

  async spent(repo: string): Promise<DaySpend> {
    const now = this.now();
    const day = dayOf(now);
    const [repositoryUsd, allUsd] = await this.redis.mget(this.keys.dailySpend(day, repo), this.keys.dailySpend(day));
    return {
      repositoryUsd: Number(repositoryUsd ?? 0),
      allUsd: Number(allUsd ?? 0),
      resetsAt: new Date((Math.floor(now / DAY_MS) + 1) * DAY_MS).toISOString(),
    };
  }
}

function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
