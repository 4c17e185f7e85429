import type { Outcome, Policy } from '@pullwright/core';
import type { DaySpend } from '@pullwright/queue';

/**
 * The `spend_cap` outcome when today's spend has reached a daily cap of the policy (the
 * repository's first, then all operations'), or undefined while both hold. Checked at the
 * door of every path that spends: a run, a revision (a review, a comment, a red-CI retry)
 * and a feature analysis. A job already running is not cut short by another's spend: it
 * answers to its own budget and pause.
 */
export function dailyCapRefusal(spend: DaySpend, budgets: Policy['budgets']): Outcome | undefined {
  const caps = [
    { cap: 'repository_daily_usd', limitUsd: budgets.repository_daily_usd, spentUsd: spend.repositoryUsd },
    { cap: 'daily_usd', limitUsd: budgets.daily_usd, spentUsd: spend.allUsd },
  ];
  for (const { cap, limitUsd, spentUsd } of caps) {
    if (limitUsd !== undefined && spentUsd >= limitUsd)
      return { code: 'spend_cap', cap, limitUsd, spentUsd, resetsAt: spend.resetsAt };
  }
  return undefined;
}
