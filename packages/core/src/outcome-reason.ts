import type { OperationStatus } from './operation.ts';

/**
 * Why an operation ended, as one of a few words: the `reason` label of the outcome counter
 * (a metric label must not be free text, or every failure becomes its own series). Read
 * from the reason the frame recorded; the first rule that matches wins.
 */
const FAILURE_REASONS: readonly [RegExp, string][] = [
  [/^internal error/i, 'internal'],
  [/secret/i, 'secret_found'],
  [/budget|turn limit|max_turns|wall time|tokens? (limit|exhausted)/i, 'budget'],
  [/may not|needs the \w+ role|forbidden/i, 'forbidden'],
  [/sandbox/i, 'sandbox'],
  [/conflict|not mergeable|head moved|branch moved/i, 'conflict'],
  [/no changes|nothing to (revise|merge)/i, 'no_change'],
  [/check|test|lint|build|new failure|exit \d+/i, 'checks_failed'],
  [/model|provider|rate limit|overloaded/i, 'model'],
  [/timed? ?out|stuck|stalled/i, 'timeout'],
  [/does not exist|is gone|not found/i, 'not_found'],
];

export function outcomeReason(status: OperationStatus, error: string | undefined): string {
  if (status === 'merged') return 'merged';
  if (status === 'rejected') return 'rejected';
  if (status === 'evaluated') return 'evaluated';
  if (status === 'cancelled') return /timed? ?out|no one|nobody/i.test(error ?? '') ? 'timeout' : 'requested';
  for (const [pattern, reason] of FAILURE_REASONS) if (pattern.test(error ?? '')) return reason;
  return 'other';
}
