import { z } from 'zod';
import type { ErrorCode } from './errors.ts';

/**
 * The specific words behind an outcome: a check's first failure, the limit that ran out… Not
 * bounded here: the sites bound what they quote, and a long text must never keep an operation
 * from ending.
 */
const detail = z.string();

/**
 * How an operation (or a revision round) ended, as data: a `code` and what that code needs.
 * Every job end is one of these: metrics count the code, the failure report picks its
 * recommendation by it, Slack and the dashboard pick their view by it, and the human
 * sentence (`describeOutcome`) is derived from it — never parsed back from prose.
 * The code is the `reason` label of `pullwright_operation_outcomes_total`.
 */
export const Outcome = z.discriminatedUnion('code', [
  z.object({ code: z.literal('merged') }),
  z.object({ code: z.literal('evaluated') }),
  z.object({ code: z.literal('rejected'), by: z.string(), note: z.string().optional() }),
  /** Someone asked (a cancel, the plan's Cancel button) or the operation ended elsewhere meanwhile. */
  z.object({ code: z.literal('requested'), by: z.string().optional(), detail: detail.optional() }),
  /** Nobody confirmed the plan within `within` (the one wait that cancels an operation). */
  z.object({ code: z.literal('timeout'), within: z.string() }),
  z.object({ code: z.literal('checks_failed'), detail }),
  z.object({ code: z.literal('no_change'), detail }),
  /** The budget ran out; `kept` names the branch or artifact holding the work so far. */
  z.object({ code: z.literal('budget'), detail, kept: z.string().optional() }),
  /**
   * Refused at the door: a daily spending cap of the policy is used up. `cap` names it
   * (`repository_daily_usd` or `daily_usd`), `resetsAt` is the next UTC midnight (ISO).
   */
  z.object({
    code: z.literal('spend_cap'),
    cap: z.string(),
    limitUsd: z.number(),
    spentUsd: z.number(),
    resetsAt: z.string(),
  }),
  /** The same failure came back after repairs. */
  z.object({ code: z.literal('stuck'), detail, kept: z.string().optional() }),
  z.object({ code: z.literal('review_rejected'), detail }),
  z.object({ code: z.literal('invalid_plan'), detail }),
  z.object({ code: z.literal('invalid_review'), detail }),
  /** The model provider failed (after its own retries). */
  z.object({ code: z.literal('model'), detail }),
  z.object({ code: z.literal('secret_found'), detail }),
  /** A path the request (`field`) or the change may not touch (protected, secret, a nested repository). */
  z.object({
    code: z.literal('path_refused'),
    /** Unset when `detail` already names it (a PathGuard refusal). */
    path: z.string().optional(),
    detail,
    field: z.string().optional(),
  }),
  z.object({ code: z.literal('forbidden'), detail }),
  /** Someone else's commits on the branch, a moved head, a conflict that cannot go back to a revision. */
  z.object({ code: z.literal('conflict'), detail }),
  z.object({ code: z.literal('not_found'), detail }),
  /** The request or the repository's configuration cannot be worked on as it is: `detail` names the fix. */
  z.object({ code: z.literal('misconfigured'), detail }),
  z.object({ code: z.literal('install_failed'), command: z.string(), detail }),
  z.object({ code: z.literal('sandbox'), detail }),
  /** `forge` names it (`GitHub`, `the local forge`); retried until FORGE_RETRY_MS or the budget ran out. */
  z.object({ code: z.literal('forge_unavailable'), forge: z.string(), detail }),
  z.object({ code: z.literal('git_failed'), detail }),
  /** Workers died running the job (JOB_MAX_STALLED) or the job kept failing. */
  z.object({ code: z.literal('stalled'), detail }),
  /** A bug of ours: the message of an error nothing expected. */
  z.object({ code: z.literal('internal'), detail }),
]);
export type Outcome = z.infer<typeof Outcome>;
export type OutcomeCode = Outcome['code'];

/** The final status an outcome puts an operation in. */
export type EndStatus = 'merged' | 'rejected' | 'failed' | 'cancelled' | 'evaluated';

/** What a code means for the system and a person. */
export interface OutcomeKind<O> {
  readonly status: EndStatus;
  /** Running the same request again, unchanged, may succeed (the cause was not in the request or the repository). */
  readonly retryable: boolean;
  /** The human sentence, derived from the outcome's data. */
  describe(outcome: O): string;
}
/** One kind per code of the union `O`: a code added to `Outcome` without its kind fails typecheck. */
export type OutcomeKinds<O extends { code: string } = Outcome> = {
  readonly [K in O['code']]: OutcomeKind<Extract<O, { code: K }>>;
};

/** `label: detail`, the shape most failure sentences take. */
function labelled<const S extends EndStatus>(label: string, status: S, retryable = false) {
  return { status, retryable, describe: (o: { detail: string }) => `${label}: ${o.detail}` };
}

function keptIn(o: { detail: string; kept?: string | undefined }, label: string): string {
  return `${label}: ${o.detail}${o.kept ? ` (the work so far is kept in ${o.kept})` : ''}`;
}

export const OUTCOME_KINDS = {
  merged: { status: 'merged', retryable: false, describe: () => 'merged' },
  evaluated: { status: 'evaluated', retryable: false, describe: () => 'the change was recorded for grading' },
  rejected: {
    status: 'rejected',
    retryable: false,
    describe: (o) => `rejected by ${o.by}${o.note ? `: ${o.note}` : ''}`,
  },
  requested: {
    status: 'cancelled',
    retryable: false,
    describe: (o) => o.detail ?? (o.by ? `cancelled by ${o.by}` : 'cancelled on request'),
  },
  timeout: { status: 'cancelled', retryable: true, describe: (o) => `the plan was not confirmed within ${o.within}` },
  checks_failed: labelled('checks failed', 'failed'),
  no_change: labelled('no changes', 'failed'),
  budget: { status: 'failed', retryable: false, describe: (o) => keptIn(o, 'budget exhausted') },
  stuck: { status: 'failed', retryable: false, describe: (o) => keptIn(o, 'stuck') },
  spend_cap: {
    status: 'failed',
    // The same request runs once the cap resets.
    retryable: true,
    describe: (o) =>
      `refused: the daily cap ${o.cap} ($${o.limitUsd.toFixed(2)}) is spent ($${o.spentUsd.toFixed(2)} today); it resets at ${o.resetsAt}`,
  },
  review_rejected: labelled('review rejected the change', 'failed'),
  invalid_plan: labelled('invalid plan', 'failed', true),
  invalid_review: labelled('invalid review', 'failed', true),
  model: labelled('the model failed', 'failed', true),
  secret_found: labelled('commit blocked', 'failed'),
  path_refused: {
    status: 'failed',
    retryable: false,
    describe: (o) => (o.path ? `${o.field ? `${o.field}: ` : ''}${o.path} is refused: ${o.detail}` : o.detail),
  },
  // A refusal's own sentence already says who may not do what ("operations from issues are off …").
  forbidden: { status: 'failed', retryable: false, describe: (o) => o.detail },
  conflict: labelled('conflict', 'failed'),
  not_found: labelled('not found', 'failed'),
  misconfigured: { status: 'failed', retryable: false, describe: (o) => o.detail },
  install_failed: {
    status: 'failed',
    retryable: false,
    describe: (o) => `dependency install (${o.command}) ${o.detail}`,
  },
  sandbox: labelled('sandbox failed', 'failed', true),
  forge_unavailable: {
    status: 'failed',
    retryable: true,
    describe: (o) => `${o.forge} is unavailable: ${o.detail}`,
  },
  git_failed: labelled('git failed', 'failed', true),
  stalled: labelled('stalled', 'failed', true),
  internal: labelled('internal error', 'failed', true),
} as const satisfies OutcomeKinds;

/** Codes that fail an operation: the ones the failure report recommends something for. */
export type FailureCode = {
  [K in OutcomeCode]: (typeof OUTCOME_KINDS)[K]['status'] extends 'failed' ? K : never;
}[OutcomeCode];

export function describeOutcome(outcome: Outcome): string {
  const kinds: OutcomeKinds = OUTCOME_KINDS;
  return (kinds[outcome.code].describe as (o: Outcome) => string)(outcome);
}

export function outcomeStatus(outcome: Outcome): EndStatus {
  return OUTCOME_KINDS[outcome.code].status;
}

/** The outcome with `fn` applied to every text it carries (redaction, host paths). */
export function mapOutcomeText(outcome: Outcome, fn: (text: string) => string): Outcome {
  const mapped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(outcome))
    mapped[key] = key !== 'code' && typeof value === 'string' ? fn(value) : value;
  return Outcome.parse(mapped);
}

/**
 * The outcome of an error that ended a job, by its stable code: the one mapping from the
 * error vocabulary (`ErrorCode`) to the outcome vocabulary, exhaustive.
 */
export function outcomeOfError(code: ErrorCode, message: string): Outcome {
  switch (code) {
    case 'check_failed':
      return { code: 'checks_failed', detail: message };
    case 'budget_exhausted':
      return { code: 'budget', detail: message };
    case 'cancelled':
      return { code: 'requested', detail: message };
    case 'secret_found':
      return { code: 'secret_found', detail: message };
    case 'path_refused':
      return { code: 'path_refused', detail: message };
    case 'forbidden':
    case 'unauthorized':
      return { code: 'forbidden', detail: message };
    case 'not_found':
      return { code: 'not_found', detail: message };
    case 'conflict':
    case 'invalid_transition':
      return { code: 'conflict', detail: message };
    case 'validation_failed':
    case 'config_invalid':
      return { code: 'misconfigured', detail: message };
    case 'agent_failed':
      return { code: 'model', detail: message };
    case 'git_failed':
      return { code: 'git_failed', detail: message };
    case 'forge_failed':
    case 'unavailable':
      return { code: 'forge_unavailable', forge: 'the forge', detail: message };
  }
}
