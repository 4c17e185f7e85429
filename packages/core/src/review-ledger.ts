import { z } from 'zod';

/** Where a change request came from: the surface a person used, or Pullwright's own merge train. */
export const LedgerSource = z.enum(['github', 'slack', 'dashboard', 'api', 'merge_train']);
export type LedgerSource = z.infer<typeof LedgerSource>;

const LedgerOutcome = z.enum(['fixed', 'declined', 'question']);

/** One thing a person asked for (a review comment, a `/pullwright` line, a Slack or dashboard request) and its answer. */
export const LedgerEntry = z.object({
  source: LedgerSource,
  /** The feedback kind (`review_comment`, `issue_comment`, `slack`…) and its id there: the entry's identity. */
  kind: z.string().max(40),
  ref: z.number().int().nonnegative(),
  user: z.string().max(200),
  text: z.string().max(20_000),
  path: z.string().max(1000).optional(),
  line: z.number().int().positive().optional(),
  /** Unset while the revision works on it. */
  outcome: LedgerOutcome.optional(),
  note: z.string().max(2000).optional(),
});
export type LedgerEntry = z.infer<typeof LedgerEntry>;

/**
 * One revision round: the requests it answered, the head the reviewers saw (`fromSha`), the
 * head it pushed (`headSha`; the same as `fromSha` when nothing needed changing) or why it failed.
 */
export const LedgerRound = z.object({
  requestId: z.string().max(100),
  at: z.string(),
  fromSha: z.string().optional(),
  state: z.enum(['working', 'pushed', 'failed']),
  headSha: z.string().optional(),
  error: z.string().max(4000).optional(),
  entries: z.array(LedgerEntry).max(100),
});
export type LedgerRound = z.infer<typeof LedgerRound>;

type WithLedger = { ledger?: LedgerRound[] | undefined };

/**
 * The round for `round.requestId` added, or replaced when a retried job records it again
 * (the ledger keeps one round per request). Pure, for `OperationStore.update`.
 */
export function recordRound<T extends WithLedger>(op: T, round: LedgerRound): T {
  const rounds = (op.ledger ?? []).filter((r) => r.requestId !== round.requestId);
  return { ...op, ledger: [...rounds, round] };
}

/** The round for `requestId` with its outcome; unchanged when the ledger holds no such round. */
export function settleRound<T extends WithLedger>(
  op: T,
  requestId: string,
  outcome: Pick<LedgerRound, 'state'> & Partial<Pick<LedgerRound, 'headSha' | 'error' | 'entries'>>,
): T {
  if (!op.ledger?.some((r) => r.requestId === requestId)) return op;
  return {
    ...op,
    ledger: op.ledger.map((r) => (r.requestId === requestId ? { ...r, ...outcome } : r)),
  };
}

/**
 * The head a reviewer last looked at, for "what changed since": the newest approved sha that
 * is not the current head, else the head the newest pushed round started from.
 */
export function lastReviewedSha(op: {
  ledger?: LedgerRound[] | undefined;
  approvals?: { headSha: string }[] | undefined;
  pullRequest?: { headSha: string } | undefined;
}): string | undefined {
  const head = op.pullRequest?.headSha;
  const approved = (op.approvals ?? []).map((a) => a.headSha).filter((sha) => sha !== head);
  if (approved.length) return approved.at(-1);
  return [...(op.ledger ?? [])].reverse().find((r) => r.state === 'pushed' && r.fromSha && r.fromSha !== head)?.fromSha;
}

/** The dashboard's page for what changed on `opId`'s branch since `fromSha` (append to the public URL). */
export function interdiffPath(opId: string, fromSha: string): string {
  return `/#/op/${opId}?tab=changes&from=${fromSha}`;
}
