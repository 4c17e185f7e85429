import { z } from 'zod';
import { FixReport } from './fix-report.ts';
import { type BudgetDecision, Evidence, OperationStatus, Requester } from './operation.ts';
import { Outcome } from './outcome.ts';
import { Plan } from './plan.ts';

const sha = z.string();
const names = z.array(z.string());

/**
 * What a step reports when it finishes (the `step` event, beside `step`, `state`, `job` and
 * its duration): each job step returns some of these facts, the frame writes them.
 */
export const StepFacts = z.object({
  /** prepare: the branch, its base and where the work starts; whether an earlier attempt's branch was reused. */
  branch: z.string().optional(),
  baseSha: sha.optional(),
  startSha: sha.optional(),
  resumed: z.boolean().optional(),
  /** prepare: the base was fetched now, or an earlier fetch was ahead of it. */
  fetched: z.enum(['ahead', 'now']).optional(),
  /** prepare: the repository's check names; baseline: each check's result on the base. */
  checks: z.union([names, z.record(z.string(), z.boolean())]).optional(),
  /** baseline: read from the cache of an earlier run on the same base. */
  cached: z.boolean().optional(),
  /** install, baseline, and a new run's prepare (its worktree's checkout): the work runs beside the model. */
  beside: z.string().optional(),
  command: z.string().optional(),
  /** install: how the dependencies came (installed, restored, layered, none). */
  how: z.string().optional(),
  /** A step with nothing to do, and why. */
  skipped: z.string().optional(),
  /** agent: how the solve ended and how many repair rounds it took. */
  outcome: z.string().optional(),
  repairs: z.number().int().nonnegative().optional(),
  turns: z.number().int().nonnegative().optional(),
  /** verify: the changed files, whether the checks passed, which fail on the base too. */
  files: z.union([names, z.number().int().nonnegative()]).optional(),
  passed: z.boolean().optional(),
  unchanged: z.boolean().optional(),
  preExisting: z.union([names, z.number().int().nonnegative()]).optional(),
  /** evidence: whether the bug was reproduced red → green. */
  reproduced: z.boolean().optional(),
  /** secret_scan: new findings in the diff (`preExisting` counts those already on the base). */
  findings: z.number().int().nonnegative().optional(),
  /** push, publish, record, merge: the head, the pull request, the merge commit. */
  headSha: sha.optional(),
  remoteSha: sha.nullable().optional(),
  pullRequest: z.number().int().positive().optional(),
  mergeSha: sha.optional(),
  /** merge: waited for the merge lock; how the base came in (merge train). */
  waited: z.boolean().optional(),
  kind: z.string().optional(),
  approvedSha: sha.optional(),
  /** revise: the change requests read, answered, and the request id. */
  comments: z.number().int().nonnegative().optional(),
  replies: z.number().int().nonnegative().optional(),
  revision: z.string().optional(),
  changed: z.boolean().optional(),
  pushedBefore: z.boolean().optional(),
  /** deploy: the deploy's status. */
  status: z.string().optional(),
});
export type StepFacts = z.infer<typeof StepFacts>;

/** What the policy step reports: the effective policy's rules, in brief (the record holds the whole policy). */
const PolicyFacts = z.object({
  /** policy: the repository file read beside the service policy (null: none). */
  file: z.string().nullable().optional(),
  approvals: z.number().int().nonnegative().optional(),
  pathRules: names.optional(),
  autoApprove: z.boolean().optional(),
  approvalRequired: z.boolean().optional(),
  deploy: z.string().nullable().optional(),
});

/**
 * Everything an operation records in its stream, by type: the whole payload each event
 * carries. This is the one vocabulary of the audit trail: writers are checked against it at
 * compile time (`OperationEvents.append`, `OperationStore.update`) and, in tests, at run time
 * (`checkEventData`); `describeEvent` gives each type its line, and every view maps every
 * type, so a new type here is a compile error until it has a schema, a line and a view.
 */
export const OperationEventData = {
  /** The request was accepted (written with the operation, by `OperationStore.create`). */
  created: z.object({
    status: z.literal('queued'),
    type: z.string(),
    repo: z.string(),
    requester: Requester.optional(),
  }),
  /** A status transition: the state machine's `to`; an end carries its outcome, and its sentence for a failure. */
  status: z.object({
    to: OperationStatus,
    outcome: Outcome.optional(),
    reason: z.string().optional(),
    /** Who moved it (approve, reject, cancel, an external merge). */
    by: z.string().optional(),
    source: z.string().optional(),
    approvals: z.number().int().nonnegative().optional(),
    /** The step or job that moved it (claim, merge, revise…). */
    step: z.string().optional(),
    job: z.string().optional(),
    headSha: sha.optional(),
    mergeSha: sha.optional(),
    pullRequest: z.number().int().positive().optional(),
    url: z.string().optional(),
    /** A revision's request id; what the revision answered or why it failed. */
    revision: z.string().optional(),
    replies: z.number().int().nonnegative().optional(),
    revisionFailed: z.string().optional(),
    /** The head moved, so the approval no longer holds. */
    approvalInvalidated: z.boolean().optional(),
    /** A merge conflict: its files, the approved head and the base it conflicts with. */
    conflict: names.optional(),
    approvedSha: sha.optional(),
    baseSha: sha.optional(),
    /** Merged on GitHub, not by Pullwright. */
    external: z.boolean().optional(),
    /** The job's worker went away (the reaper ended it). */
    stalled: z.boolean().optional(),
  }),
  /** A pipeline step started or finished (prepare, install, baseline, agent, verify, push…), with what it reports. */
  step: StepFacts.extend(PolicyFacts.shape).extend({
    step: z.string(),
    /** started, finished, or ready (install and baseline run beside the model). */
    state: z.enum(['started', 'finished', 'ready']).optional(),
    job: z.string().optional(),
    durationMs: z.number().nonnegative().optional(),
  }),
  /** The agent moved to a phase: plan (with the plan once made), code, verify, repair, review. */
  phase: z.object({
    phase: z.enum(['plan', 'code', 'verify', 'repair', 'review']),
    plan: Plan.optional(),
    /** plan: what was changed in the plan (checks it named that the repository does not have). */
    note: z.string().optional(),
    /** repair: the round, the checks still failing, the plan task. */
    round: z.number().int().positive().optional(),
    failing: names.optional(),
    taskId: z.string().optional(),
    /** verify: the changed files. */
    files: names.optional(),
  }),
  /** One model turn (the agent loop's step). */
  model: z.object({ role: z.string(), turn: z.number(), text: z.string(), toolCalls: names }),
  /** One tool call (the agent loop's step). */
  tool: z.object({
    role: z.string(),
    name: z.string(),
    /** The call's arguments, as the model sent them: any JSON the tool's own schema then checks. */
    input: z.unknown().optional(),
    isError: z.boolean(),
    summary: z.string(),
  }),
  /** One of the repository's checks ran. */
  check: z.object({
    name: z.string(),
    passed: z.boolean(),
    exitCode: z.number().nullable(),
    durationMs: z.number().nonnegative(),
    failingTests: names.optional(),
    /** The result of an identical earlier run on the same tree. */
    reused: z.boolean().optional(),
    /** Run outside the agent's work: by the merge train after merging the base (`base_merge`). */
    step: z.string().optional(),
  }),
  /** A message from a person reached the running model. */
  message: z.object({ from: z.string(), source: z.string(), text: z.string() }),
  /** The operation waits for locks another operation holds (files, or the merge lock). */
  waiting: z.object({
    holder: z.string(),
    lock: z.literal('merge').optional(),
    files: names.optional(),
    since: z.string().optional(),
  }),
  /** The operation holds its file locks (`waited`: after waiting for another operation). */
  locks_acquired: z.object({ files: names, waited: z.boolean().optional() }),
  /** A resumable point the job reached. */
  checkpoint: z.object({
    step: z.string(),
    outcome: z.string().optional(),
    branch: z.string().optional(),
    baseSha: sha.optional(),
    passed: z.boolean().optional(),
  }),
  /** Red/green evidence for a debug operation. */
  evidence: Evidence,
  /** Open branches that touch the same files. */
  overlap: z.object({ branches: names, files: names }),
  /** The risk of the final diff. */
  risk: z.object({ level: z.enum(['low', 'medium', 'high']), reasons: names }),
  /** One approval given (a person's, or the policy's). */
  approval: z.object({
    by: z.string(),
    identity: z.string(),
    source: z.string(),
    role: z.string(),
    headSha: sha,
    rule: z.string().optional(),
  }),
  /** An approval was given and more are needed. */
  approval_pending: z.object({ missing: names, approvals: z.number().int().nonnegative() }),
  /** The policy approved the change itself, or said why not. */
  auto_approval: z.object({ approved: z.boolean(), reasons: names.optional(), rule: z.string().optional() }),
  cancel_requested: z.object({ by: z.string() }),
  /** One model call metered (tokens, cost). */
  usage: z.object({
    inputTokens: z.number().nonnegative(),
    outputTokens: z.number().nonnegative(),
    cacheReadTokens: z.number().nonnegative().optional(),
    cacheWriteTokens: z.number().nonnegative().optional(),
    costUsd: z.number().nonnegative(),
  }),
  /** The plan waits for a person (with the plan), or was started or modified by one. */
  plan_confirmation: z.object({
    state: z.enum(['pending', 'started', 'modified', 'cancelled']),
    since: z.string().optional(),
    timeoutMs: z.number().nonnegative().optional(),
    plan: Plan.optional(),
    by: z.string().optional(),
    note: z.string().optional(),
  }),
  /** One step of a deploy. */
  /** The spend estimate before the agent starts, beside the cost budget it runs under. */
  budget_estimate: z.object({
    estimateUsd: z.number().nonnegative(),
    basis: z.enum(['history', 'policy']),
    samples: z.number().int().nonnegative(),
    limitUsd: z.number().nonnegative(),
  }),
  /** The budget pause at its threshold: pending (with the spend), then extended or stopped by someone (or the timeout). */
  budget_pause: z.object({
    state: z.enum(['pending', 'extended', 'stopped']),
    spentUsd: z.number().nonnegative().optional(),
    limitUsd: z.number().nonnegative().optional(),
    percent: z.number().nonnegative().optional(),
    timeoutMs: z.number().nonnegative().optional(),
    by: z.string().optional(),
    amountUsd: z.number().positive().optional(),
    within: z.string().optional(),
  }),
  /** How a publish's commits reached the forge: signed through its API, or pushed unsigned (and why). */
  commit_signature: z.object({
    state: z.enum(['forge', 'unsigned']),
    reason: z.string().optional(),
    headSha: sha,
  }),
  deploy: z.object({
    step: z.enum([
      'started',
      'triggered',
      'status',
      'succeeded',
      'failed',
      'rollback_started',
      'rolled_back',
      'rollback_failed',
      'finished',
    ]),
    target: z.string().optional(),
    by: z.string().optional(),
    /** triggered: the target's id for the deploy. */
    id: z.string().optional(),
    /** status: the target's state. */
    state: z.string().optional(),
    status: z.string().optional(),
    reason: z.string().optional(),
  }),
  /** Per-step verification: a plan task started, verified, still red or done. */
  plan_step: z.object({
    planId: z.string(),
    taskId: z.string(),
    title: z.string(),
    state: z.enum(['started', 'verified', 'failed', 'done']),
    checks: z.array(z.object({ name: z.string(), passed: z.boolean() })).optional(),
  }),
  /** The fixer's strict JSON outcome (seed 000), or why it was not valid. */
  fix_report: z.object({
    round: z.number().int().positive(),
    taskId: z.string().optional(),
    valid: z.boolean(),
    report: FixReport.optional(),
    problem: z.string().optional(),
  }),
  /** Red CI on the PR head: what was done about it (a revision, pre-existing, needs a person). */
  ci_failure: z.object({
    state: z.enum(['revision_queued', 'needs_human', 'pre_existing', 'unreadable']),
    headSha: sha,
    checks: names.optional(),
    preExisting: names.optional(),
    runUrl: z.string().optional(),
    /** revision_queued: which automatic revision this is, of how many. */
    attempt: z.number().int().positive().optional(),
    of: z.number().int().positive().optional(),
    /** needs_human: the automatic revisions already made. */
    attempts: z.number().int().nonnegative().optional(),
    /** The GitHub App permissions whose absence kept the CI logs unread. */
    missingPermissions: names.optional(),
    reason: z.string().optional(),
  }),
  /** What runs the repository's code; `sandboxed: false` only under SANDBOX=none. */
  sandbox: z.object({ runner: z.string(), sandboxed: z.boolean(), warning: z.string().optional() }),
  /** The repository's instruction files the model was given (read from the base commit), and the ones left out. */
  instructions: z.object({
    files: z.array(z.object({ path: z.string(), kind: z.string().optional(), tokens: z.number().optional() })),
    skipped: z.array(z.object({ path: z.string(), reason: z.string().optional() })).optional(),
  }),
  /** One of the operation's MCP servers started with its tools, failed to start, or exited. */
  mcp: z.object({
    server: z.string(),
    state: z.enum(['ready', 'failed', 'exited']),
    tools: names.optional(),
    required: z.boolean().optional(),
    reason: z.string().optional(),
  }),
  /** The merge train merged the base into the branch, and the checks ran again. */
  base_merged: z.object({
    approvedSha: sha.optional(),
    baseSha: sha,
    headSha: sha,
    checks: z.array(z.object({ name: z.string(), exitCode: z.number().nullable(), durationMs: z.number() })),
  }),
  /** The PR's head moved after approval (a push): the approval no longer holds. */
  head_moved: z.object({ headSha: sha, by: z.string().optional() }),
  /** A revision (review feedback): asked for, or pushed with its new head and the replies. */
  revision: z.object({
    state: z.enum(['requested', 'pushed']),
    requestId: z.string(),
    requests: z.number().int().nonnegative().optional(),
    headSha: sha.optional(),
    changed: z.boolean().optional(),
    replies: z
      .array(z.object({ id: z.number(), kind: z.string(), outcome: z.string(), note: z.string().optional() }))
      .optional(),
  }),
  /** This operation retries another one / was retried as another one. */
  retry_of: z.object({ opId: z.string(), by: z.string() }),
  retried: z.object({ retryId: z.string(), by: z.string() }),
  /** Followed from a Slack command (the notifier posts its channel message). */
  slack_session: z.object({
    channel: z.string(),
    user: z.string(),
    budgetUsd: z.number().optional(),
    auto: z.boolean().optional(),
  }),
  slack_thread: z.object({ channel: z.string(), ts: z.string() }),
  /**
   * The install step's egress proxy refused a connection: the host and port asked for, why
   * (`not_allowed`, `service_port`, `loopback`, `link_local`, `private`, …), the address it
   * resolved to, and the step (install, baseline, base_merge).
   */
  egress_refused: z.object({
    host: z.string(),
    port: z.number(),
    reason: z.string(),
    address: z.string().optional(),
    step: z.string(),
  }),
  /** The stuck watchdog's report of a silent step, and its all-clear. */
  stuck: z.object({ step: z.string().optional(), since: z.string().optional(), idleMs: z.number().nonnegative() }),
  /** Progress again after a stuck report, `afterMs` after the silence began. */
  unstuck: z.object({ afterMs: z.number().nonnegative() }),
} satisfies Record<string, z.ZodObject>;

export type OperationEventType = keyof typeof OperationEventData;
export const OperationEventType = z.enum(
  Object.keys(OperationEventData) as [OperationEventType, ...OperationEventType[]],
);

/** What a writer passes as the data of an event of type `T`. */
export type OperationEventDataOf<T extends OperationEventType> = z.input<(typeof OperationEventData)[T]>;

/** The data of an event of type `T` as a view reads it (parsed: defaults filled in). */
export type OperationEventDataOut<T extends OperationEventType> = z.output<(typeof OperationEventData)[T]>;

/** An event as a writer hands it over (`OperationStore.update`). */
export type OperationEventInput = {
  [T in OperationEventType]: { type: T; data?: OperationEventDataOf<T> };
}[OperationEventType];

/** The `budget_pause` event recording a person's Extend or Stop, wherever they decided (REST, dashboard, Slack). */
export function budgetDecisionEvent(d: BudgetDecision): OperationEventInput {
  return {
    type: 'budget_pause',
    data: {
      state: d.action === 'extend' ? 'extended' : 'stopped',
      by: d.by,
      ...(d.action === 'extend' && d.amountUsd !== undefined ? { amountUsd: d.amountUsd } : {}),
    },
  };
}

/**
 * A type read from a stream that this build does not know (written by a newer version during
 * a rolling deploy, or a type since removed). Branded so it never absorbs a known type: views
 * switch over `readEvent`'s typed events, where such a type is not one of the cases.
 */
export type UnknownEventType = string & { readonly unknownEventType: true };

/** One stored event, as every view reads it. */
export interface OperationEvent {
  /** Redis stream id: ordered, and the resume point for SSE clients (Last-Event-ID). */
  id: string;
  ts: string;
  opId: string;
  type: OperationEventType | UnknownEventType;
  data: Record<string, unknown>;
}

/** Reads a stored type name; one this build does not know stays readable, as `UnknownEventType`. */
export function eventType(raw: string): OperationEventType | UnknownEventType {
  const known = OperationEventType.safeParse(raw);
  return known.success ? known.data : (raw as UnknownEventType);
}

/** A stored event of a known type whose data fits its schema: what views switch over. */
export type KnownEvent = {
  [T in OperationEventType]: Omit<OperationEvent, 'type' | 'data'> & { type: T; data: OperationEventDataOut<T> };
}[OperationEventType];

/**
 * A stored event, typed: undefined for a type this build does not know, or data that does not
 * fit the type's schema (a record from an older version with a field since renamed). Views
 * show those by their type name instead of guessing at the fields.
 */
export function readEvent(e: OperationEvent): KnownEvent | undefined {
  const type = OperationEventType.safeParse(e.type);
  if (!type.success) return undefined;
  const data = OperationEventData[type.data].safeParse(e.data);
  return data.success ? ({ ...e, type: type.data, data: data.data } as KnownEvent) : undefined;
}

/**
 * Checks an event before it is written: the data fits its type's schema and carries no field
 * the schema does not name. The writers (`OperationEvents.append`, `OperationStore`) call it
 * under test (VITEST or NODE_ENV=test), so every event a whole-system test writes is checked;
 * throws naming the type and what does not fit.
 */
export function checkEventData(type: string, data: unknown): void {
  const known = OperationEventType.safeParse(type);
  if (!known.success) throw new Error(`event type "${type}" is not in the vocabulary (core OperationEventData)`);
  const schema = OperationEventData[known.data];
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new Error(`event "${type}" does not fit its schema: ${z.prettifyError(parsed.error)}`);
  const extra = Object.keys(data as object).filter((k) => !(k in schema.shape));
  if (extra.length) throw new Error(`event "${type}" carries fields its schema does not name: ${extra.join(', ')}`);
}
