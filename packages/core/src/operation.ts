import { z } from 'zod';
import { PullwrightError } from './errors.ts';
import { Outcome } from './outcome.ts';
import { Plan } from './plan.ts';
import { Policy } from './policy.ts';
import { Review } from './review.ts';
import { LedgerRound } from './review-ledger.ts';

const OPERATION_TYPES = ['debug', 'implement', 'fix', 'refactor'] as const;
export const OperationType = z.enum(OPERATION_TYPES);
export type OperationType = z.infer<typeof OperationType>;

export const OPERATION_STATUSES = [
  'queued',
  'running',
  'awaiting_approval',
  'approved',
  'merging',
  'merged',
  'rejected',
  'failed',
  'cancelled',
  'evaluated',
] as const;
export const OperationStatus = z.enum(OPERATION_STATUSES);
export type OperationStatus = z.infer<typeof OperationStatus>;

export const FINAL_STATUSES: ReadonlySet<OperationStatus> = new Set([
  'merged',
  'rejected',
  'failed',
  'cancelled',
  'evaluated',
]);

/** `owner/name`, the GitHub spelling: letters, digits, `-`, `_`, `.`; no `..` tricks. */
export const RepoSlug = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/, 'must be owner/name')
  .refine((s) => !s.split('/')[1]?.startsWith('.') && !s.includes('..'), 'must be owner/name');

/** A git branch name that cannot be read as an option or a path escape. */
export const BranchName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)[A-Za-z0-9._/-]+(?<![./])$/, 'must be a valid branch name');

/** How soon an operation runs: a `critical` one starts before queued `low` work (BullMQ job priority). */
const OPERATION_PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
export const OperationPriority = z.enum(OPERATION_PRIORITIES);
export type OperationPriority = z.infer<typeof OperationPriority>;

/**
 * Files the requester declares the change is about: locked for the operation together with
 * the plan's files (all or nothing, before the coder starts) and named in the planner's task.
 * Repository-relative; the worker's PathGuard refuses the rest (secret files, `.git/`…).
 */
export const TargetFiles = z
  .array(
    z
      .string()
      .min(1)
      .max(1000)
      .refine((p) => !p.startsWith('/') && !p.split(/[\\/]/).includes('..') && !p.includes('\0'), {
        message: 'must be a path inside the repository (no leading /, no ..)',
      }),
  )
  .max(200);

/** `fr` + a sortable id: never confused with an operation id in a URL or a Slack command. */
export const FeatureRequestId = z.string().regex(/^fr[a-z0-9]{6,40}$/, 'not a feature request id');

/** What a feature request asks for, as the `/implement` operation it became carries it (seed 001). */
export const FeatureContext = z.object({
  /** The feature request this operation implements; marked released when the operation merges. */
  featureRequestId: FeatureRequestId.optional(),
  requirements: z.string().trim().min(1, 'must not be empty').max(20_000),
  acceptanceCriteria: z.array(z.string().trim().min(1, 'must not be empty').max(2000)).min(1).max(50),
});
export type FeatureContext = z.infer<typeof FeatureContext>;

export const RequesterSource = z.enum(['slack', 'api', 'dashboard', 'github']);

/**
 * Who asked: a person through one of the entry points, or `policy` when configuration itself
 * started the work (a repository's schedule, an operator's event source) — no person to
 * authorize, so the configuration that named the work is the authority.
 */
export const Requester = z.object({
  source: z.enum([...RequesterSource.options, 'policy']),
  user: z.string().min(1).max(200),
  channel: z.string().max(200).optional(),
  thread: z.string().max(200).optional(),
});
export type Requester = z.infer<typeof Requester>;

/**
 * Where the work started when it was not a person asking Pullwright directly: a GitHub issue
 * (labelled, assigned to the app, or a `/pullwright` comment), a repository's schedule, or an
 * event from a configured source (a Sentry alert). Shown by Slack, the dashboard and the PR
 * (`Fixes #N` for an issue); the issue's tracking comment follows the operation.
 */
export const Origin = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('issue'),
    repo: RepoSlug,
    number: z.number().int().positive(),
    url: z.string().max(2000),
    title: z.string().max(500),
    /** What started it: `label`, `assignment` or `comment`. */
    trigger: z.enum(['label', 'assignment', 'comment']),
  }),
  z.object({
    kind: z.literal('schedule'),
    /** The `schedules:` entry of the repository's `.pullwright.yml`. */
    name: z.string().max(40),
    cron: z.string().max(100),
    /** The tick this run belongs to (ISO time): one operation per tick. */
    tick: z.string().max(40),
  }),
  z.object({
    kind: z.literal('event'),
    /** The configured source (EVENT_SOURCES) and the id the source gave the event. */
    source: z.string().max(40),
    eventId: z.string().max(200),
    title: z.string().max(500),
    url: z.string().max(2000).optional(),
  }),
]);
export type Origin = z.infer<typeof Origin>;

export const OperationContext = z.object({
  errorText: z.string().max(50_000).optional(),
  stack: z.string().max(50_000).optional(),
  logs: z.string().max(100_000).optional(),
  acceptance: z.string().max(20_000).optional(),
});
export type OperationContext = z.infer<typeof OperationContext>;

/** What one run of a repository check (test, lint…) reported: the agent's view, and what a solve journal replays. */
export const CheckRun = z.object({
  name: z.string(),
  command: z.string(),
  passed: z.boolean(),
  exitCode: z.number().nullable(),
  durationMs: z.number(),
  output: z.string(),
  timedOut: z.boolean(),
  /** Failing test names when the runner's output tells them (see the agent's check-failures.ts). */
  failingTests: z.array(z.string()),
});
export type CheckRun = z.infer<typeof CheckRun>;

/** A check run as the operation stores it (output trimmed and redacted, see `toCheckResults`). */
export const CheckResult = CheckRun.omit({ timedOut: true }).extend({
  // Records written before failing tests were parsed have none.
  failingTests: z.array(z.string()).default([]),
  /** Failed on the base commit too, with the same failures: reported, not blocking. */
  preExisting: z.boolean().default(false),
});
export type CheckResult = z.infer<typeof CheckResult>;

const PullRequestRef = z.object({
  number: z.number().int().positive(),
  url: z.string(),
  headSha: z.string(),
});

export const Usage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative(),
  wallTimeMs: z.number().nonnegative(),
  modelCalls: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

const Approval = z.object({
  by: z.string(),
  /** `policy`: auto-approved by the repository's policy (see `ApprovalRecord.rule`). */
  source: z.enum([...RequesterSource.options, 'policy']),
  headSha: z.string(),
  at: z.string(),
});

/**
 * One approval as the policy counts it: who (the identity behind the Slack/GitHub/dashboard
 * user), with which role and groups at the time, for which head sha. `policy` approvals name
 * the auto-approval rule that allowed them.
 */
export const ApprovalRecord = z.object({
  identity: z.string(),
  user: z.string(),
  source: z.enum(['slack', 'api', 'dashboard', 'github', 'policy']),
  role: z.string(),
  groups: z.array(z.string()),
  headSha: z.string(),
  at: z.string(),
  rule: z.string().optional(),
});
export type ApprovalRecord = z.infer<typeof ApprovalRecord>;

/** Risk of the final diff (see @pullwright/policy `assessRisk`); shown on the PR, in Slack and the dashboard. */
export const RiskAssessment = z.object({
  level: z.enum(['low', 'medium', 'high']),
  reasons: z.array(z.string()),
  stats: z.object({
    files: z.number().int().nonnegative(),
    additions: z.number().int().nonnegative(),
    deletions: z.number().int().nonnegative(),
    kinds: z.record(z.string(), z.number().int().nonnegative()),
  }),
  headSha: z.string().optional(),
});
export type RiskAssessment = z.infer<typeof RiskAssessment>;

/**
 * A secret the outbound scan found in what the change would publish (see @pullwright/security
 * `scanOutbound`): never the secret, at most its first characters (`preview`). Findings that
 * were already on the base are kept with `preExisting` and do not block.
 */
export const Finding = z.object({
  ruleId: z.string(),
  /** Where the text goes: a file path, the branch, the PR body… (secrets in it masked). */
  file: z.string(),
  /** 1-based; 0 for a finding about a whole file (a refused file name). */
  line: z.number().int().nonnegative(),
  preview: z.string(),
  /** The outbound channel (`file`, `commit-message`, `pr-body`…); records before 2026-11-24 scanned files only. */
  channel: z.string().default('file'),
  preExisting: z.boolean().optional(),
});
export type Finding = z.infer<typeof Finding>;

const DeployStatus = z.enum(['running', 'succeeded', 'failed', 'rolled_back', 'rollback_failed']);

/** The last deploy of a merged operation; each step is also a `deploy` event on the timeline. */
export const DeployRecord = z.object({
  status: DeployStatus,
  target: z.string(),
  by: z.string(),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  /** The target's own id for the deploy (GitHub deployment id, the webhook's answer). */
  externalId: z.string().optional(),
  error: z.string().optional(),
});
export type DeployRecord = z.infer<typeof DeployRecord>;

/** Per-request budget overrides; unset fields take the service defaults. */
export const Budget = z
  .object({
    turns: z.number().int().positive().max(1000),
    tokens: z.number().int().positive(),
    wallMs: z.number().int().positive(),
    costUsd: z.number().positive().max(1000),
  })
  .partial();
export type Budget = z.infer<typeof Budget>;

/** For /debug: the tests that failed before the change (red) and pass after it (green). */
export const Evidence = z.object({
  reproduced: z.boolean(),
  red: z.array(z.string()),
  green: z.array(z.string()),
  note: z.string().optional(),
});
export type Evidence = z.infer<typeof Evidence>;

/**
 * What a retried job reads back to skip work already done: `agent_done`, the solve step's (a
 * retry goes on to verify and publish with the change the agent left). The other steps are
 * safe to run again (prepare resumes the worktree, verify answers from the check-result cache,
 * publish pushes nothing the forge already holds and finds the PR it opened), so they record
 * none: a checkpoint that is written is one that is read.
 */
export const Checkpoint = z.enum(['agent_done']);
export type Checkpoint = z.infer<typeof Checkpoint>;

/** Set while the operation waits for file locks another operation holds (see @pullwright/locks). */
export const LockWait = z.object({
  files: z.array(z.string()),
  /** The operation holding (one of) the files. */
  holder: z.string(),
  /** ISO time the wait began. */
  since: z.string(),
});
export type LockWait = z.infer<typeof LockWait>;

/** Set by the worker's watchdog when a step appended no event for STUCK_AFTER_MS; cleared on progress. */
export const StuckReport = z.object({
  /** The last step the operation reported before going quiet. */
  step: z.string().optional(),
  /** ISO time of the last event before the silence. */
  since: z.string(),
  idleMs: z.number().int().nonnegative(),
});
export type StuckReport = z.infer<typeof StuckReport>;

/**
 * A plan waiting for a person before the coder starts (see pipeline `needsPlanConfirmation`).
 * `modified` carries the note that is added to the plan the coder gets.
 */
export const PlanConfirmation = z.object({
  state: z.enum(['pending', 'started', 'modified']),
  /** ISO time the plan was shown. */
  since: z.string(),
  by: z.string().optional(),
  at: z.string().optional(),
  note: z.string().max(4000).optional(),
});
export type PlanConfirmation = z.infer<typeof PlanConfirmation>;

/**
 * The operation's spending contract (issue 32): the estimate shown before the agent starts,
 * the cost the people asked at the threshold added on top of the budget, and the pause
 * waiting for their decision (`extend` by an amount, or `stop` keeping the work).
 */
export const BudgetPause = z.object({
  state: z.enum(['pending', 'extended', 'stopped']),
  /** ISO time the operation paused. */
  since: z.string(),
  /** What it had spent, and its cost limit then (USD). */
  spentUsd: z.number().nonnegative(),
  limitUsd: z.number().nonnegative(),
  by: z.string().optional(),
  at: z.string().optional(),
  amountUsd: z.number().positive().optional(),
});
export type BudgetPause = z.infer<typeof BudgetPause>;

export const BudgetContract = z.object({
  /** What an operation of this type on this repository is expected to cost (USD). */
  estimateUsd: z.number().nonnegative().optional(),
  /** `history`: the median of the repository's last finished operations of this type; `policy`: the policy's default. */
  estimateBasis: z.enum(['history', 'policy']).optional(),
  /** How many finished operations the estimate is the median of (0 for `policy`). */
  estimateSamples: z.number().int().nonnegative().optional(),
  /** USD people added to the cost budget at its threshold, in total. */
  extendedUsd: z.number().nonnegative().default(0),
  pause: BudgetPause.optional(),
});
export type BudgetContract = z.infer<typeof BudgetContract>;

export interface BudgetDecision {
  action: 'extend' | 'stop';
  by: string;
  /** For `extend`: USD added to the cost budget. */
  amountUsd?: number;
}

/**
 * The pending budget pause, decided. Pure, for `OperationStore.update`: a second click, or
 * a decision on an operation that is not paused, is a `conflict`.
 */
export function decideBudget(op: Operation, d: BudgetDecision, now = new Date()): Operation {
  const contract = op.budgetContract;
  const pending = contract?.pause?.state === 'pending' ? contract.pause : undefined;
  if (op.status !== 'running' || op.cancelRequested || !contract || !pending) {
    const decided = contract?.pause && contract.pause.state !== 'pending' ? contract.pause : undefined;
    const message = decided
      ? `the budget of ${op.id} was already ${decided.state} by ${decided.by ?? 'someone'}`
      : `operation ${op.id} is not paused at its budget (${op.cancelRequested ? 'cancelling' : op.status})`;
    throw new PullwrightError('conflict', message, { status: op.status, state: contract?.pause?.state ?? null });
  }
  const at = now.toISOString();
  if (d.action === 'stop')
    return {
      ...op,
      budgetContract: { ...contract, pause: { ...pending, state: 'stopped', by: d.by, at } },
      updatedAt: at,
    };
  const amountUsd = d.amountUsd ?? 0;
  if (!(amountUsd > 0)) throw new PullwrightError('validation_failed', 'extending the budget needs an amount above 0');
  return {
    ...op,
    budgetContract: {
      ...contract,
      extendedUsd: contract.extendedUsd + amountUsd,
      pause: { ...pending, state: 'extended', by: d.by, at, amountUsd },
    },
    updatedAt: at,
  };
}

/**
 * Marks an operation as one attempt at an evaluation task (`pullwright eval run`, see
 * @pullwright/eval): it runs the `run` job's steps with the same gates and budget, from a
 * worktree holding the base commit alone, and ends `evaluated` with its change recorded for
 * grading — never pushed, never a pull request. Set only by the evaluation runner (no request
 * schema accepts it).
 */
export const EvalAttempt = z.object({
  /** The evaluation run this attempt belongs to. */
  run: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, 'letters, digits, - and _ only'),
  /** The task's `instance_id` (SWE-bench instance format). */
  instance: z.string().min(1).max(300),
  attempt: z.number().int().positive(),
  /** The model the run asked for (`--model`): every worker answers this attempt with it. */
  model: z.string().min(1).max(200).optional(),
});
export type EvalAttempt = z.infer<typeof EvalAttempt>;

/**
 * Whether the commits the operation published carry a signature: `forge` — created through
 * GitHub's git-data API, which signs them (Verified); `unsigned` — pushed over git, with the
 * reason when the forge could have signed them but the API path was impossible (none on the
 * local forge, which signs nothing).
 */
export const CommitSignature = z.object({
  state: z.enum(['forge', 'unsigned']),
  reason: z.string().optional(),
});
export type CommitSignature = z.infer<typeof CommitSignature>;

export const Operation = z.object({
  id: z.string(),
  type: OperationType,
  repo: RepoSlug,
  baseBranch: BranchName,
  description: z.string().min(1).max(20_000),
  context: OperationContext,
  requester: Requester,
  origin: Origin.optional(),
  /** BullMQ priority of the operation's run job (see @pullwright/queue `JOB_CATALOG`). */
  priority: OperationPriority.default('medium'),
  targetFiles: TargetFiles.default([]),
  /**
   * True: a person must approve, whatever the auto-approval rules say. False only where the
   * policy allows auto-approval: resolved at claim against the effective policy (see
   * pipeline `ApprovalPolicy.atClaim`); unset until then, when the request left it to the policy.
   */
  approvalRequired: z.boolean().optional(),
  featureContext: FeatureContext.optional(),
  eval: EvalAttempt.optional(),
  status: OperationStatus,
  /** Optimistic-concurrency counter: every write must name the version it read. */
  version: z.number().int().nonnegative(),
  branch: z.string().optional(),
  baseSha: z.string().optional(),
  headSha: z.string().optional(),
  pullRequest: PullRequestRef.optional(),
  /** The planner's plan (a plan stored by an older version that does not parse reads as none). */
  plan: Plan.optional().catch(undefined),
  /** The model's closing summary of the change. */
  summary: z.string().optional(),
  /** The reviewer's last verdict (one stored in an older shape reads as none). */
  review: Review.optional().catch(undefined),
  evidence: Evidence.optional(),
  budget: Budget.optional(),
  budgetContract: BudgetContract.optional(),
  filesChanged: z.array(z.string()).default([]),
  checks: z.array(CheckResult).default([]),
  findings: z.array(Finding).default([]),
  risk: RiskAssessment.optional(),
  usage: Usage,
  /** The approval the merge job acts on (its head sha is the one merged). */
  approval: Approval.optional(),
  /** The merge commit the forge made (set once merged): the dashboard shows it after the merge. */
  mergeSha: z.string().optional(),
  /** Every approval given, for any head sha; only those for the current head count. */
  approvals: z.array(ApprovalRecord).optional(),
  /**
   * The effective policy (service ∧ repository file) fixed at claim time; see @pullwright/policy.
   * One stored in a shape that no longer parses reads as none: the service policy applies.
   */
  policy: Policy.optional().catch(undefined),
  deploy: DeployRecord.optional(),
  // Records written before list checkpoints nothing read ('prepared', 'pushed'…): dropped as read.
  checkpoints: z
    .array(z.string())
    .default([])
    .transform((all) => all.filter((c): c is Checkpoint => Checkpoint.safeParse(c).success)),
  cancelRequested: z.boolean().default(false),
  waiting: LockWait.optional(),
  /** Ask for plan confirmation (true) or skip it (false, Slack `--auto`); unset: the default rule. */
  confirmPlan: z.boolean().optional(),
  planConfirmation: PlanConfirmation.optional(),
  /** Every revision round: who asked what, where, and what the revision did about it (oldest first). */
  ledger: z.array(LedgerRound).optional(),
  stuck: StuckReport.optional(),
  /** Open branches of other operations that touch the same files. */
  overlaps: z
    .array(
      z.object({ branch: z.string(), opId: z.string(), files: z.array(z.string()), prNumber: z.number().optional() }),
    )
    .optional(),
  /** How the operation ended, as data (see `Outcome`); set with every final status. */
  outcome: Outcome.optional(),
  /**
   * Why the operation ended where it did (failed, cancelled, rejected): `describeOutcome` of
   * `outcome`, written with it for the views and API clients that show a sentence.
   */
  error: z.string().optional(),
  /**
   * A failed operation's closing report (seed 000's failure format, markdown): Summary,
   * Issues, Partial changes (with the kept diff), Recommendation. Shown in the dashboard,
   * Slack and the PR's tracking comment.
   */
  failureReport: z.string().max(60_000).optional(),
  transcriptPath: z.string().optional(),
  /** What ran the repository's code: `sandboxed: false` only under SANDBOX=none, and then every view says so. */
  sandbox: z.object({ runner: z.string(), sandboxed: z.boolean() }).optional(),
  /** How the operation's last published commits are signed (see `CommitSignature`); unset before the first publish. */
  commitSignature: CommitSignature.optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Operation = z.infer<typeof Operation>;

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, costUsd: 0, wallTimeMs: 0, modelCalls: 0 };
}

/**
 * `<prefix><id>-<slug>`: the slug is for humans, the id makes it unique; the prefix is the
 * repository policy's `branches.prefix` (default `agent/`).
 */
export function branchNameFor(op: Pick<Operation, 'id' | 'description'>, prefix = 'agent/'): string {
  const slug = op.description
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
  return `${prefix}${op.id}${slug ? `-${slug}` : ''}`;
}

export interface PlanDecision {
  decision: 'start' | 'modify';
  by: string;
  /** Required for `modify`: what should change, added to the plan as a requirement. */
  note?: string;
}

/**
 * The pending plan confirmation, decided. Pure, for `OperationStore.update`: a second click,
 * a decision after a cancel or on a plan nobody was asked about is a `conflict`.
 */
export function decidePlan(op: Operation, d: PlanDecision, now = new Date()): Operation {
  const note = d.note?.trim();
  if (d.decision === 'modify' && !note) {
    throw new PullwrightError('validation_failed', 'modifying the plan needs a note saying what should change');
  }
  const pending = op.planConfirmation?.state === 'pending' ? op.planConfirmation : undefined;
  if (op.status !== 'running' || op.cancelRequested || !pending) {
    const decided = op.planConfirmation && op.planConfirmation.state !== 'pending' ? op.planConfirmation : undefined;
    const message = decided
      ? `the plan of ${op.id} was already ${decided.state} by ${decided.by ?? 'someone'}`
      : `operation ${op.id} is not waiting for its plan to be confirmed (${op.cancelRequested ? 'cancelling' : op.status})`;
    throw new PullwrightError('conflict', message, {
      status: op.status,
      state: op.planConfirmation?.state ?? null,
    });
  }
  const at = now.toISOString();
  return {
    ...op,
    planConfirmation: {
      ...pending,
      state: d.decision === 'start' ? 'started' : 'modified',
      by: d.by,
      at,
      ...(d.decision === 'modify' && note ? { note } : {}),
    },
    updatedAt: at,
  };
}
