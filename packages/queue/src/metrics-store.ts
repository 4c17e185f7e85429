import { defineLuaCommand, type Usage } from '@pullwright/core';
import type { Result } from 'ioredis';
import type { RedisClient } from './redis-client.ts';
import type { RedisKeys } from './redis-keys.ts';

const meterLua = new URL('./meter-usage-1.lua', import.meta.url);

declare module 'ioredis' {
  interface RedisCommander<Context> {
    pwMeterUsage(meteredKey: string, ttlSeconds: string, ...fieldTotals: string[]): Result<string[], Context>;
  }
}

/**
 * Upper bounds (seconds) of the step-duration histogram. Steps range from a sub-second
 * worktree to an hour-long agent loop with a slow test suite.
 */
export const STEP_BUCKETS_S = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600] as const;

/** Usage counters summed over all operations; what `meterUsage` adds to. */
const METERED_USAGE = ['inputTokens', 'outputTokens', 'costUsd', 'modelCalls'] as const;
export type MeteredUsage = Record<(typeof METERED_USAGE)[number], number>;

/** Per-operation record of what was already counted; kept well past any retry of the operation. */
const METERED_TTL_S = 30 * 24 * 3600;

export interface StepDuration {
  step: string;
  seconds: number;
}

export interface StepHistogram {
  /** Cumulative counts per bound of STEP_BUCKETS_S, then +Inf (Prometheus `le` semantics). */
  cumulative: number[];
  sum: number;
  count: number;
}

/** How many operations of a type ended in a status, for a reason (the code of the operation's `Outcome`). */
export interface OutcomeCount {
  type: string;
  status: string;
  reason: string;
  count: number;
}

export interface MetricsTotals {
  steps: Map<string, StepHistogram>;
  usage: MeteredUsage;
  outcomes: OutcomeCount[];
}

/**
 * Counters the workers write and the API reads at scrape time. Worker processes have no
 * HTTP server, so what they measure lives in Redis: one hash for the step-duration
 * histogram (non-cumulative bucket counts, summed up on read) and one for usage totals.
 * Counts survive restarts of every process, as Prometheus counters expect.
 */
export class MetricsStore {
  private readonly stepsKey: string;
  private readonly usageKey: string;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {
    this.stepsKey = `${keys.prefix}:metrics:steps`;
    this.usageKey = `${keys.prefix}:metrics:usage`;
    defineLuaCommand(redis, 'pwMeterUsage', meterLua);
  }

  async recordSteps(durations: StepDuration[]): Promise<void> {
    if (durations.length === 0) return;
    const multi = this.redis.multi();
    for (const { step, seconds } of durations) {
      const index = STEP_BUCKETS_S.findIndex((bound) => seconds <= bound);
      multi
        .hincrby(this.stepsKey, `${step}\t${index === -1 ? 'inf' : index}`, 1)
        .hincrbyfloat(this.stepsKey, `${step}\tsum`, seconds)
        .hincrby(this.stepsKey, `${step}\tcount`, 1);
    }
    await multi.exec();
  }

  /**
   * Adds what `usage` grew by since the last call for this operation to the totals. The
   * per-operation record shares the operation's hash slot; the totals live elsewhere, so a
   * crash between the two calls loses that growth rather than counting it twice.
   */
  async meterUsage(opId: string, usage: Usage): Promise<void> {
    const args = METERED_USAGE.flatMap((field) => [field, String(usage[field])]);
    const grown = await this.redis.pwMeterUsage(`${this.keys.operation(opId)}:metered`, String(METERED_TTL_S), ...args);
    if (grown.length === 0) return;
    const multi = this.redis.multi();
    for (let i = 0; i + 1 < grown.length; i += 2) multi.hincrbyfloat(this.usageKey, grown[i]!, grown[i + 1]!);
    await multi.exec();
  }

  async read(): Promise<MetricsTotals> {
    const [steps, usage, ended] = await Promise.all([
      this.redis.hgetall(this.stepsKey),
      this.redis.hgetall(this.usageKey),
      this.redis.hgetall(this.keys.outcomes()),
    ]);
    const outcomes = Object.entries(ended).flatMap(([field, count]) => {
      const [type, status, reason] = field.split('\t');
      return type && status && reason ? [{ type, status, reason, count: Number(count) }] : [];
    });
    const histograms = new Map<string, StepHistogram>();
    const histogram = (step: string) => {
      let h = histograms.get(step);
      if (!h) {
        h = { cumulative: new Array<number>(STEP_BUCKETS_S.length + 1).fill(0), sum: 0, count: 0 };
        histograms.set(step, h);
      }
      return h;
    };
    for (const [field, value] of Object.entries(steps)) {
      const [step, part] = field.split('\t');
      if (!step || !part) continue;
      const h = histogram(step);
      if (part === 'sum') h.sum = Number(value);
      else if (part === 'count') h.count = Number(value);
      else h.cumulative[part === 'inf' ? STEP_BUCKETS_S.length : Number(part)]! += Number(value);
    }
    for (const h of histograms.values()) {
      for (let i = 1; i < h.cumulative.length; i++) h.cumulative[i]! += h.cumulative[i - 1]!;
    }
    const totals = Object.fromEntries(METERED_USAGE.map((f) => [f, Number(usage[f] ?? 0)])) as MeteredUsage;
    return { steps: histograms, usage: totals, outcomes };
  }
}
