import { PullwrightError } from './errors.ts';
import { FINAL_STATUSES, type Operation, type OperationStatus } from './operation.ts';
import { describeOutcome, outcomeStatus } from './outcome.ts';

/**
 * The only transitions an operation may take. Everything that changes a status goes
 * through `transition`, so this table is the whole lifecycle.
 */
export const TRANSITIONS: Readonly<Record<OperationStatus, readonly OperationStatus[]>> = {
  queued: ['running', 'cancelled'],
  // -> evaluated: an evaluation attempt's change is recorded for grading (nothing is published).
  running: ['awaiting_approval', 'failed', 'cancelled', 'evaluated'],
  // -> running: a revision (review feedback) works on the same branch again.
  awaiting_approval: ['approved', 'rejected', 'running'],
  // -> awaiting_approval: a push after approval invalidates it (approvals bind to a head sha).
  approved: ['merging', 'awaiting_approval'],
  // -> running: a merge conflict goes back to the worker as a revision, then re-approval.
  merging: ['merged', 'failed', 'running'],
  merged: [],
  rejected: [],
  failed: [],
  cancelled: [],
  evaluated: [],
};

/** Ending in one of these without saying why would lose the one thing the user needs. */
const NEEDS_REASON: ReadonlySet<OperationStatus> = new Set(['failed', 'cancelled', 'rejected']);

export class InvalidTransitionError extends PullwrightError<{ from: OperationStatus; to: OperationStatus }> {
  constructor(from: OperationStatus, to: OperationStatus) {
    super('invalid_transition', `cannot go from ${from} to ${to}`, { from, to });
  }
}

export function canTransition(from: OperationStatus, to: OperationStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The sentence (`error`) is never written directly: it is derived from the outcome. */
export type TransitionPatch = Partial<Omit<Operation, 'id' | 'status' | 'version' | 'createdAt' | 'error'>>;

/**
 * Returns the operation in its new status; throws `InvalidTransitionError` for anything else.
 * A final status needs the `outcome` that leads to it; `error` becomes its sentence.
 */
export function transition(
  op: Operation,
  to: OperationStatus,
  patch: TransitionPatch = {},
  now = new Date(),
): Operation {
  if (!canTransition(op.status, to)) throw new InvalidTransitionError(op.status, to);
  const { outcome } = patch;
  if (FINAL_STATUSES.has(to) && !outcome) {
    throw new PullwrightError('validation_failed', `a transition to ${to} needs an outcome`, { to });
  }
  if (outcome && outcomeStatus(outcome) !== to) {
    throw new PullwrightError(
      'validation_failed',
      `outcome ${outcome.code} ends in ${outcomeStatus(outcome)}, not ${to}`,
      {
        to,
        code: outcome.code,
      },
    );
  }
  const error = outcome && NEEDS_REASON.has(to) ? describeOutcome(outcome) : op.error;
  const next: Operation = { ...op, ...patch, status: to, updatedAt: now.toISOString() };
  if (error === undefined) delete next.error;
  else next.error = error;
  return next;
}
