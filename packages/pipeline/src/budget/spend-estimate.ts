import type { BudgetContract, Operation, Policy } from '@pullwright/core';
import type { OperationStore } from '@pullwright/queue';

/** The history an estimate is the median of: the repository's last finished operations of the type. */
const HISTORY = 10;
/** How far back the listing looks for them (newest first). */
const SCAN = 200;
const FINISHED = new Set<Operation['status']>(['awaiting_approval', 'approved', 'merged', 'rejected', 'failed']);

interface Estimate {
  estimateUsd: number;
  estimateBasis: NonNullable<BudgetContract['estimateBasis']>;
  estimateSamples: number;
}

/**
 * What the operation is expected to cost before its agent starts (issue 32): the median
 * cost of the repository's last ten finished operations of the same type that spent
 * anything, or the policy's `budgets.estimate_usd` when there are none (undefined when
 * neither exists: the views then say there is no estimate).
 */
export async function spendEstimate(
  store: OperationStore,
  op: Pick<Operation, 'id' | 'repo' | 'type'>,
  budgets: Policy['budgets'],
): Promise<Estimate | undefined> {
  const costs = (await store.list({ repo: op.repo, limit: SCAN }))
    .filter((o) => o.id !== op.id && o.type === op.type && FINISHED.has(o.status) && o.usage.costUsd > 0)
    .slice(0, HISTORY)
    .map((o) => o.usage.costUsd)
    .sort((a, b) => a - b);
  if (costs.length > 0) {
    const mid = Math.floor(costs.length / 2);
    const median = costs.length % 2 ? costs[mid]! : (costs[mid - 1]! + costs[mid]!) / 2;
    return { estimateUsd: median, estimateBasis: 'history', estimateSamples: costs.length };
  }
  if (budgets.estimate_usd === undefined) return undefined;
  return { estimateUsd: budgets.estimate_usd, estimateBasis: 'policy', estimateSamples: 0 };
}
