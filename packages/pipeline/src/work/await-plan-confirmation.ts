import type { Operation, Outcome, Plan, PlanConfirmation } from '@pullwright/core';
import type { OperationStore } from '@pullwright/queue';
import { waitForPerson } from './wait-for-person.ts';

export const DEFAULT_PLAN_CONFIRMATION_TIMEOUT_MS = 3_600_000;

/**
 * Whether the coder waits for a person to confirm the plan: an `/implement` from Slack does
 * unless it was sent with `--auto` (stored as `confirmPlan: false`); any request may ask
 * with `confirmPlan: true`.
 */
export function needsPlanConfirmation(op: Pick<Operation, 'type' | 'requester' | 'confirmPlan'>): boolean {
  return op.confirmPlan ?? (op.type === 'implement' && op.requester.source === 'slack');
}

/** The plan the coder gets after a Modify: the note becomes one more step it must satisfy. */
export function planWithNote(plan: Plan, confirmation: Pick<PlanConfirmation, 'note' | 'by'>): Plan {
  if (!confirmation.note) return plan;
  const by = confirmation.by ? ` by ${confirmation.by}` : '';
  return {
    ...plan,
    steps: [
      ...plan.steps,
      {
        title: `Change requested${by} when the plan was confirmed`,
        files: [],
        acceptance: confirmation.note,
        tests: [],
      },
    ],
  };
}

type PlanConfirmationOutcome = { go: true; confirmation: PlanConfirmation } | { go: false; stop: Outcome };

interface AwaitPlanConfirmationInput {
  store: OperationStore;
  opId: string;
  /** The plan as people see it (redacted). */
  plan: Plan;
  timeoutMs: number;
  pollMs?: number;
}

/**
 * Shows the plan (a `plan_confirmation` event with `planConfirmation.state: pending`) and
 * polls the operation until someone starts it, modifies it, cancels the operation, or the
 * timeout passes. A job retried after a decision does not ask again.
 */
export async function awaitPlanConfirmation(input: AwaitPlanConfirmationInput): Promise<PlanConfirmationOutcome> {
  const { store, opId, plan, timeoutMs } = input;
  const earlier = (await store.get(opId)).planConfirmation;
  if (earlier && earlier.state !== 'pending') return { go: true, confirmation: earlier };
  const since = new Date().toISOString();
  await store.patch(
    opId,
    { plan, planConfirmation: { state: 'pending', since } },
    { type: 'plan_confirmation', data: { state: 'pending', since, timeoutMs, plan } },
  );
  const answer = await waitForPerson({
    store,
    opId,
    timeoutMs,
    ...(input.pollMs !== undefined ? { pollMs: input.pollMs } : {}),
    answer: (op) => (op.planConfirmation && op.planConfirmation.state !== 'pending' ? op.planConfirmation : undefined),
  });
  return answer.answered ? { go: true, confirmation: answer.value } : { go: false, stop: answer.stop };
}
