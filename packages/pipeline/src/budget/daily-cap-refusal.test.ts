import { describeOutcome } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { dailyCapRefusal } from './daily-cap-refusal.ts';

const resetsAt = '2026-11-28T00:00:00.000Z';

describe('dailyCapRefusal', () => {
  it.each([
    ['no caps', {}, 100, 100, undefined],
    ['under both', { repository_daily_usd: 5, daily_usd: 50 }, 4.99, 49, undefined],
    ['the repository cap reached', { repository_daily_usd: 5, daily_usd: 50 }, 5, 6, 'repository_daily_usd'],
    ['all operations’ cap reached', { repository_daily_usd: 5, daily_usd: 50 }, 1, 50.5, 'daily_usd'],
    ['both: the repository is named first', { repository_daily_usd: 5, daily_usd: 50 }, 9, 60, 'repository_daily_usd'],
  ])('%s', (_what, budgets, repositoryUsd, allUsd, cap) => {
    const refusal = dailyCapRefusal({ repositoryUsd, allUsd, resetsAt }, budgets);
    expect(refusal && refusal.code === 'spend_cap' ? refusal.cap : undefined).toBe(cap);
  });

  it('says which cap, what was spent and when it resets', () => {
    const refusal = dailyCapRefusal({ repositoryUsd: 5.123, allUsd: 6, resetsAt }, { repository_daily_usd: 5 });
    expect(describeOutcome(refusal!)).toBe(
      'refused: the daily cap repository_daily_usd ($5.00) is spent ($5.12 today); it resets at 2026-11-28T00:00:00.000Z',
    );
  });
});
