import { type BudgetLimits, BudgetTracker, type CheckRun, type ModelUsage, truncateOutput } from '@pullwright/agent';
import type { CheckResult, Operation } from '@pullwright/core';
import type { JobName } from '@pullwright/queue';
import type { Redactor } from '@pullwright/security';
import type { PipelineDeps } from '../frame/pipeline-deps.ts';

/** Service defaults, tightened or loosened per request where the request says so. */
export function budgetLimits(defaults: BudgetLimits, overrides: Operation['budget']): BudgetLimits {
  return {
    turns: overrides?.turns ?? defaults.turns,
    tokens: overrides?.tokens ?? defaults.tokens,
    wallMs: overrides?.wallMs ?? defaults.wallMs,
    costUsd: overrides?.costUsd ?? defaults.costUsd,
  };
}

/**
 * Whose git token it is: one per job of an operation. A job revokes its token when it ends,
 * which may be after the operation moved on (a revision's cleanup runs after its
 * awaiting_approval) — a shared token would be revoked under the next job's feet.
 */
export function tokenHolder(opId: string, job: JobName): string {
  return `${opId}/${job}`;
}

/** The repository's policy can only lower a budget: each limit is the smaller of the two. */
export function tightestBudget(
  limits: BudgetLimits,
  policy: {
    turns?: number | undefined;
    tokens?: number | undefined;
    wall_ms?: number | undefined;
    cost_usd?: number | undefined;
  },
): BudgetLimits {
  const min = (a: number, b: number | undefined) => (b === undefined ? a : Math.min(a, b));
  return {
    turns: min(limits.turns, policy.turns),
    tokens: min(limits.tokens, policy.tokens),
    wallMs: min(limits.wallMs, policy.wall_ms),
    costUsd: min(limits.costUsd, policy.cost_usd),
  };
}

/**
 * The operation's budget for this job: its limits (service defaults, the request's own,
 * never looser than the repository policy's), starting from what the operation has already
 * spent, so neither a crash-resume nor a revision gets a fresh budget.
 */
export function operationBudget(
  deps: Pick<PipelineDeps, 'budget' | 'prices'>,
  op: Operation,
  policy: Parameters<typeof tightestBudget>[1],
  now?: () => number,
): BudgetTracker {
  const u = op.usage;
  const limits = tightestBudget(budgetLimits(deps.budget, op.budget), policy);
  // What people added at the threshold is theirs to give: it goes on top of the policy's cost cap.
  limits.costUsd += op.budgetContract?.extendedUsd ?? 0;
  return new BudgetTracker(limits, {
    spent: { turns: u.modelCalls, tokens: u.inputTokens + u.outputTokens, costUsd: u.costUsd, wallMs: u.wallTimeMs },
    prices: deps.prices,
    ...(now ? { now } : {}),
  });
}

/**
 * Adds one model call's tokens and cost to the operation, so dashboards and budgets stay
 * current, and its cost to the day's spend of the repository and of all operations (the
 * daily caps every spending job checks at its door).
 */
export function usageRecorder(
  deps: Pick<PipelineDeps, 'store' | 'dailySpend'>,
  op: Pick<Operation, 'id' | 'repo'>,
  budget: BudgetTracker,
) {
  const { store } = deps;
  const opId = op.id;
  return async (u: ModelUsage, costUsd: number): Promise<void> => {
    await deps.dailySpend.add(op.repo, costUsd);
    await store.update(
      opId,
      (cur) => ({
        ...cur,
        usage: {
          inputTokens: cur.usage.inputTokens + u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens,
          outputTokens: cur.usage.outputTokens + u.outputTokens,
          costUsd: cur.usage.costUsd + costUsd,
          // The tracker's wall time already includes what earlier jobs of the operation spent.
          wallTimeMs: budget.spent.wallMs,
          modelCalls: cur.usage.modelCalls + 1,
        },
      }),
      { type: 'usage', data: { ...u, costUsd } },
    );
  };
}

/** Check runs as stored on the operation: output trimmed and redacted, failures marked blocking or not. */
export function toCheckResults(runs: CheckRun[], blocking: readonly CheckRun[], redactor: Redactor): CheckResult[] {
  return runs.map((r) => ({
    name: r.name,
    command: r.command,
    passed: r.passed,
    exitCode: r.exitCode,
    durationMs: r.durationMs,
    output: redactor.redact(truncateOutput(r.output, 4000)),
    failingTests: r.failingTests,
    preExisting: !r.passed && !blocking.includes(r),
  }));
}
