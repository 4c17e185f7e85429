import { FeatureRequestId, OperationPriority } from '@pullwright/core';
import type { JobsOptions } from 'bullmq';
import { z } from 'zod';

/** The queue every code operation job goes through: runs, revisions, merges and deploys. */
export const CODE_OPERATIONS_QUEUE = 'code-operations';

/** The run job carries the operation's priority: BullMQ orders waiting jobs by it (see `JOB_CATALOG.run`). */
const RunJob = z.object({ opId: z.string().min(1), priority: OperationPriority.default('medium') });

/**
 * BullMQ priorities (1 is taken first; jobs of one priority keep their order). Run jobs only:
 * revisions, merges and deploys carry no priority, so BullMQ takes them before any waiting
 * run — they finish work a person is already waiting on.
 */
const RUN_PRIORITY: Record<OperationPriority, number> = { critical: 1, high: 2, medium: 3, low: 4 };
const MergeJob = z.object({ opId: z.string().min(1), headSha: z.string().min(7) });
/** Follows a deploy the operation recorded as started (`deploy.startedAt` names it). */
const DeployJob = z.object({ opId: z.string().min(1), startedAt: z.string().min(1) });

/**
/**
 * One piece of feedback a revision answers: a review's body, an inline comment or a
 * `/pullwright` comment on GitHub; a change request from Slack (a thread reply, the modal),
 * the dashboard or REST; a failing CI check (its name, summary, annotations and log excerpt);
 * or the merge train's conflict (`merge_conflict`). `id` is the comment id there (Slack: the
 * message ts without its dot).
 */
export const ReviewFeedback = z.object({
  id: z.number().int().nonnegative(),
  kind: z.enum([
    'review',
    'review_comment',
    'issue_comment',
    'check_run',
    'slack',
    'dashboard',
    'api',
    'merge_conflict',
  ]),
  user: z.string().min(1).max(100),
  body: z.string().max(20_000),
  path: z.string().max(1000).optional(),
  line: z.number().int().positive().optional(),
});
export type ReviewFeedback = z.infer<typeof ReviewFeedback>;

/** Review feedback on an operation's PR → a new commit on the same branch. */
export const ReviseJob = z.object({
  opId: z.string().min(1),
  /** What asked for it (the webhook delivery id): the same request revises once. */
  requestId: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'letters, digits, - and _ only'),
  /** A review whose inline comments belong to the task; the worker reads them from the forge. */
  reviewId: z.number().int().positive().optional(),
  feedback: z.array(ReviewFeedback).max(100).default([]),
});
export type ReviseJobPayload = z.input<typeof ReviseJob>;

/**
 * Red CI on an operation's PR head: looked at once the settle delay has passed (so every
 * check has finished), then a revision, nothing (pre-existing or recovered), or a person.
 */
const CiFailureJob = z.object({
  opId: z.string().min(1),
  headSha: z.string().regex(/^[0-9a-f]{40}$/, 'must be a full commit sha'),
  /** The run or suite that reported the failure first, for people (a link). */
  runUrl: z.string().max(2000).optional(),
  /** The policy's `triggers.ci.settle_ms` at the time of the failure. */
  settleMs: z.number().int().nonnegative(),
});

/** Analyses a captured feature request with the model (seed 001): intent, modules, priority, criteria. */
const AnalyzeFeatureJob = z.object({
  featureRequestId: FeatureRequestId,
  /** When the analysis was asked for: "Analyze again" is a new job, the same request twice is one. */
  requestedAt: z.string().min(1),
});

/** Kept so a duplicate enqueue within a day is still recognised as a duplicate. */
const KEEP = { age: 24 * 3600, count: 5000 };

interface CatalogEntry<S extends z.ZodType> {
  schema: S;
  /** The BullMQ job id: enqueuing the same thing twice is a no-op. */
  jobId(payload: z.infer<S>): string;
  options: JobsOptions;
  /** A delayed job: it runs this many ms after it is added (BullMQ's `delay`), never a sleep. */
  delayMs?(payload: z.infer<S>): number;
  /** The BullMQ priority of this payload's job, when the job type has one. */
  priority?(payload: z.infer<S>): number;
}

const entry = <S extends z.ZodType>(e: CatalogEntry<S>) => e;

/**
 * Every job of the queue: its payload schema (checked at enqueue and again in the worker),
 * its id rule and its options. `CodeQueue.add` and the worker's dispatch both derive from
 * it, so a job type cannot be enqueued one way and read another.
 */
export const JOB_CATALOG = {
  /** A new operation: claim → prepare → … → PR. One per operation. */
  run: entry({
    schema: RunJob,
    jobId: (p) => p.opId,
    options: { removeOnComplete: KEEP, removeOnFail: KEEP },
    priority: (p) => RUN_PRIORITY[p.priority],
  }),
  /**
   * One per request (delivery id). A revision waits for a busy operation (a run or another
   * revision holds the branch): retried with backoff (1 s … ~17 min over 10 attempts) rather
   * than merged into the running work, so every review gets its own commit and reply table.
   */
  revise: entry({
    schema: ReviseJob,
    jobId: (p) => `${p.opId}-revise-${p.requestId}`,
    options: {
      attempts: 10,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: KEEP,
      removeOnFail: KEEP,
    },
  }),
  /** One per approved head: a new approval of a new head is a new merge. */
  merge: entry({
    schema: MergeJob,
    jobId: (p) => `${p.opId}-merge-${p.headSha.slice(0, 12)}`,
    options: { removeOnComplete: KEEP, removeOnFail: KEEP },
  }),
  /** One per deploy started. */
  deploy: entry({
    schema: DeployJob,
    jobId: (p) => `${p.opId}-deploy-${p.startedAt.replace(/[^0-9]/g, '')}`,
    options: { removeOnComplete: KEEP, removeOnFail: KEEP },
  }),
  /**
   * One per PR head: check_suite, check_run and workflow_run deliveries for the same red
   * head (there are many) collapse into the one delayed look at it.
   */
  ci_failure: entry({
    schema: CiFailureJob,
    jobId: (p) => `${p.opId}-ci-${p.headSha.slice(0, 12)}`,
    options: { removeOnComplete: KEEP, removeOnFail: KEEP },
    delayMs: (p) => p.settleMs,
  }),
  /**
   * One per analysis asked for. Runs in a worker, never in the API process: the API holds no
   * model key. The job records its own failure (with the reason) on the request; the
   * provider already retries what is worth retrying.
   */
  analyze_feature: entry({
    schema: AnalyzeFeatureJob,
    jobId: (p) => `${p.featureRequestId}-analyze-${p.requestedAt.replace(/[^0-9]/g, '')}`,
    options: { removeOnComplete: KEEP, removeOnFail: KEEP },
  }),
} as const;

export type JobName = keyof typeof JOB_CATALOG;
export type JobData<N extends JobName> = z.infer<(typeof JOB_CATALOG)[N]['schema']>;
export type JobPayload<N extends JobName> = z.input<(typeof JOB_CATALOG)[N]['schema']>;
