import type { BudgetPause, Operation } from '@pullwright/core';
import { StopOperation } from '../frame/stop-operation.ts';
import { keepWork } from '../work/keep-work.ts';
import { stopReason } from '../work/stop-reason.ts';
import { describeWait, waitForPerson } from '../work/wait-for-person.ts';
import type { PreparedWork, WorkContext } from '../work/work-context.ts';

/** What a pause reads of the prepared work: the budget it measures, and the worktree whose diff a stop keeps. */
type PausedWork = Pick<PreparedWork, 'budget' | 'ws' | 'startSha'>;

/** Issue 32: the share of the cost budget at which an operation stops to ask (policy `budgets.pause_at_percent`). */
const DEFAULT_PAUSE_AT_PERCENT = 80;
/** How long it waits for extend / stop (policy `budgets.decision_timeout_ms`): an hour, as a plan waits. */
const DEFAULT_DECISION_TIMEOUT_MS = 3_600_000;

/** Limits are sums of decimal USD: compared with a tolerance, not `===`. */
const sameUsd = (a: number, b: number) => Math.abs(a - b) < 1e-9;

/**
 * A loop's `shouldStop`: a cancel or an end elsewhere first, then the budget threshold. At
 * `pause_at_percent` of the cost budget the operation pauses (a `budget_pause` event with
 * `state: pending`; Slack and the dashboard show Extend / Stop) and waits, through the same
 * wait as a plan confirmation, for the requester or an approver. Extend raises this job's
 * limit and goes on; stop, or no answer within the timeout, ends the operation as a budget
 * stop does: the work so far kept as the operation's diff artifact.
 */
export async function stopOrPauseAtBudget(ctx: WorkContext, work: PausedWork): Promise<string | undefined> {
  const why = await stopReason(ctx);
  if (why) return why;
  await pauseAtThreshold(ctx, work);
  return undefined;
}

async function pauseAtThreshold(ctx: WorkContext, work: PausedWork): Promise<void> {
  // An evaluation attempt has nobody to ask: it stops at its budget.
  if (ctx.op.eval) return;
  const { deps } = ctx;
  const budgets = deps.approvalPolicy.policyOf(ctx.op).budgets;
  const percent = budgets.pause_at_percent ?? DEFAULT_PAUSE_AT_PERCENT;
  if (percent >= 100) return;
  const { budget } = work;
  const spentUsd = budget.spent.costUsd;
  const limitUsd = budget.limits.costUsd;
  if (spentUsd < (limitUsd * percent) / 100) return;

  const op = await deps.store.get(ctx.opId);
  const contract = op.budgetContract ?? { extendedUsd: 0 };
  const earlier = contract.pause && sameUsd(contract.pause.limitUsd, limitUsd) ? contract.pause : undefined;
  if (earlier?.state === 'stopped') throw await budgetStop(ctx, work, earlier);
  if (earlier?.state === 'extended') return;
  const timeoutMs = budgets.decision_timeout_ms ?? DEFAULT_DECISION_TIMEOUT_MS;
  if (!earlier) {
    const pause: BudgetPause = { state: 'pending', since: new Date().toISOString(), spentUsd, limitUsd };
    ctx.op = await deps.store.patch(
      ctx.opId,
      { budgetContract: { ...contract, pause } },
      { type: 'budget_pause', data: { state: 'pending', spentUsd, limitUsd, percent, timeoutMs } },
    );
  }
  const waitStarted = Date.now();
  const answer = await waitForPerson({
    store: deps.store,
    opId: ctx.opId,
    timeoutMs,
    answer: (cur) => decidedPause(cur, limitUsd),
  });
  // Waiting for a person is not the operation's working time.
  ctx.confirmationWaitMs += Date.now() - waitStarted;
  if (answer.answered) {
    ctx.op = answer.op;
    if (answer.value.state === 'stopped') throw await budgetStop(ctx, work, answer.value);
    budget.extendCost(answer.value.amountUsd ?? 0);
    return;
  }
  if (answer.stop.code !== 'timeout') throw new StopOperation(answer.stop);
  const at = new Date().toISOString();
  ctx.op = await deps.store.update(
    ctx.opId,
    (cur) => {
      const c = cur.budgetContract ?? { extendedUsd: 0 };
      const p = c.pause ?? { state: 'pending' as const, since: at, spentUsd, limitUsd };
      return { ...cur, budgetContract: { ...c, pause: { ...p, state: 'stopped', by: 'timeout', at } }, updatedAt: at };
    },
    { type: 'budget_pause', data: { state: 'stopped', by: 'timeout', within: answer.stop.within } },
  );
  throw await budgetStop(ctx, work, undefined, describeWait(timeoutMs));
}

function decidedPause(op: Operation, limitUsd: number): BudgetPause | undefined {
  const p = op.budgetContract?.pause;
  return p && p.state !== 'pending' && sameUsd(p.limitUsd, limitUsd) ? p : undefined;
}

async function budgetStop(
  ctx: WorkContext,
  work: PausedWork,
  pause: BudgetPause | undefined,
  within?: string,
): Promise<StopOperation> {
  const { budget } = work;
  const spent = `$${budget.spent.costUsd.toFixed(4)} of $${budget.limits.costUsd.toFixed(2)}`;
  const detail = pause
    ? `stopped at the budget's threshold by ${pause.by ?? 'someone'} (${spent})`
    : `nobody extended the budget within ${within} of its threshold (${spent})`;
  const kept = await keepWork(ctx, work);
  return new StopOperation({ code: 'budget', detail, ...(kept ? { kept } : {}) });
}
