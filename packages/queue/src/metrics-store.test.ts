import type { OperationEvent } from '@pullwright/core';
import { emptyUsage } from '@pullwright/core';
import { redisTest } from '@pullwright/testing';
import { describe, expect, it } from 'vitest';
import { stepDurations } from './metrics-step-durations.ts';
import { MetricsStore, STEP_BUCKETS_S } from './metrics-store.ts';
import { RedisKeys } from './redis-keys.ts';

describe('MetricsStore', () => {
  redisTest('keeps a cumulative histogram per step with sum and count', async ({ redis, prefix }) => {
    const metrics = new MetricsStore(redis, new RedisKeys(prefix));
    await metrics.recordSteps([
      { step: 'agent', seconds: 0.5 },
      { step: 'agent', seconds: 20 },
      { step: 'agent', seconds: 7200 },
      { step: 'verify', seconds: 3 },
    ]);
    const { steps } = await metrics.read();
    const agent = steps.get('agent')!;
    expect(agent.count).toBe(3);
    expect(agent.sum).toBeCloseTo(7220.5);
    expect(agent.cumulative).toHaveLength(STEP_BUCKETS_S.length + 1);
    // le=1 holds 0.5; le=30 adds 20; only +Inf holds 7200.
    expect(agent.cumulative[0]).toBe(1);
    expect(agent.cumulative[STEP_BUCKETS_S.indexOf(30)]).toBe(2);
    expect(agent.cumulative[STEP_BUCKETS_S.length - 1]).toBe(2);
    expect(agent.cumulative.at(-1)).toBe(3);
    expect(steps.get('verify')?.cumulative[1]).toBe(1);
  });

  redisTest('counts usage growth once per operation, however often it is metered', async ({ redis, prefix }) => {
    const metrics = new MetricsStore(redis, new RedisKeys(prefix));
    const usage = { ...emptyUsage(), inputTokens: 100, outputTokens: 10, costUsd: 0.25, modelCalls: 2 };
    await metrics.meterUsage('op1', usage);
    await metrics.meterUsage('op1', usage);
    await metrics.meterUsage('op1', { ...usage, inputTokens: 150, modelCalls: 3 });
    await metrics.meterUsage('op2', { ...emptyUsage(), inputTokens: 1, costUsd: 0.5 });
    const { usage: totals } = await metrics.read();
    expect(totals).toEqual({ inputTokens: 151, outputTokens: 10, costUsd: 0.75, modelCalls: 3 });
  });
});

describe('stepDurations', () => {
  const at = (ms: number, type: OperationEvent['type'], data: Record<string, unknown>): OperationEvent => ({
    id: `${ms}-0`,
    ts: new Date(ms).toISOString(),
    opId: 'op',
    type,
    data,
  });

  it('measures every step the job frame marked started and finished', () => {
    const events = [
      at(1_000, 'status', { to: 'running', step: 'claim' }),
      at(1_000, 'step', { step: 'prepare', state: 'started' }),
      at(3_500, 'step', { step: 'prepare', state: 'finished', durationMs: 2500 }),
      at(3_500, 'step', { step: 'agent', state: 'started' }),
      at(4_000, 'tool', { name: 'edit_file' }),
      at(13_500, 'step', { step: 'agent', state: 'finished' }),
      at(13_500, 'step', { step: 'publish', state: 'started' }),
      at(14_000, 'step', { step: 'push', headSha: 'abc' }),
      at(15_000, 'step', { step: 'publish', state: 'finished' }),
      at(15_100, 'step', { step: 'release' }),
    ];
    expect(stepDurations(events)).toEqual([
      { step: 'prepare', seconds: 2.5 },
      { step: 'agent', seconds: 10 },
      { step: 'publish', seconds: 1.5 },
    ]);
  });

  it('leaves out a step the attempt did not finish', () => {
    const events = [
      at(1_000, 'step', { step: 'prepare', state: 'started' }),
      at(2_000, 'step', { step: 'prepare', state: 'finished' }),
      at(2_500, 'step', { step: 'agent', state: 'started' }),
    ];
    expect(stepDurations(events)).toEqual([{ step: 'prepare', seconds: 1 }]);
  });
});
