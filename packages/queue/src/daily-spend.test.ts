import { redisTest } from '@pullwright/testing';
import { describe, expect } from 'vitest';
import { DailySpend } from './daily-spend.ts';
import { RedisKeys } from './redis-keys.ts';

const DAY_MS = 86_400_000;

describe('DailySpend', () => {
  redisTest('adds to the repository and to all operations, per UTC day, with a TTL', async ({ redis, prefix }) => {
    let now = Date.parse('2026-11-27T23:59:00.000Z');
    const keys = new RedisKeys(prefix);
    const spend = new DailySpend(redis, keys, () => now);
    await spend.add('acme/a', 0.25);
    await spend.add('acme/a', 0.5);
    await spend.add('acme/b', 1);
    await spend.add('acme/b', 0);
    expect(await spend.spent('acme/a')).toEqual({
      repositoryUsd: 0.75,
      allUsd: 1.75,
      resetsAt: '2026-11-28T00:00:00.000Z',
    });
    const ttl = await redis.ttl(keys.dailySpend('2026-11-27', 'acme/a'));
    expect(ttl).toBeGreaterThan(DAY_MS / 1000);
    expect(ttl).toBeLessThanOrEqual(DAY_MS / 1000 + 3600);

    // Past midnight UTC both counters start from zero.
    now += 120_000;
    expect(await spend.spent('acme/a')).toEqual({ repositoryUsd: 0, allUsd: 0, resetsAt: '2026-11-29T00:00:00.000Z' });
  });

  redisTest('concurrent additions are all counted', async ({ redis, prefix }) => {
    const spend = new DailySpend(redis, new RedisKeys(prefix));
    await Promise.all(Array.from({ length: 50 }, () => spend.add('acme/a', 0.01)));
    const { repositoryUsd, allUsd } = await spend.spent('acme/a');
    expect(repositoryUsd).toBeCloseTo(0.5, 8);
    expect(allUsd).toBeCloseTo(0.5, 8);
  });
});
