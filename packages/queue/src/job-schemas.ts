import { z } from 'zod';

/** The queue every code operation job goes through: runs, revisions and merges. */
export const CODE_OPERATIONS_QUEUE = 'code-operations';

export const RunJob = z.object({ opId: z.string().min(1) });
export const MergeJob = z.object({ opId: z.string().min(1), headSha: z.string().min(7) });

export const JOB_SCHEMAS = { run: RunJob, merge: MergeJob } as const;
export type JobName = keyof typeof JOB_SCHEMAS;
export type JobPayload<N extends JobName> = z.infer<(typeof JOB_SCHEMAS)[N]>;

/** One piece of review feedback a revision answers: a review's body, an inline comment, or a `/pullwright` comment. */
export const ReviewFeedback = z.object({
  id: z.number().int().nonnegative(),
  kind: z.enum(['review', 'review_comment', 'issue_comment']),
  user: z.string().min(1).max(100),
  body: z.string().max(20_000),
  path: z.string().max(1000).optional(),
  line: z.number().int().positive().optional(),
});
export type ReviewFeedback = z.infer<typeof ReviewFeedback>;

/**
 * Review feedback on an operation's PR → a new commit on the same branch. Kept out of
 * `JOB_SCHEMAS`: `CodeQueue.jobId` would give it the run job's id (the operation id) and
 * BullMQ would drop it as a duplicate; `enqueueRevision` (pipeline) adds it with
 * `reviseJobId` instead.
 */
export const ReviseJob = z.object({
  opId: z.string().min(1),
  /** What asked for it (the webhook delivery id): the same request revises once. */
  requestId: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'letters, digits, - and _ only'),
  /** A review whose inline comments belong to the task; the worker reads them from the forge. */
  reviewId: z.number().int().positive().optional(),
  feedback: z.array(ReviewFeedback).max(100).default([]),
});
export type ReviseJobPayload = z.input<typeof ReviseJob>;

export function reviseJobId(payload: Pick<ReviseJobPayload, 'opId' | 'requestId'>): string {
  return `${payload.opId}-revise-${payload.requestId}`;
}
