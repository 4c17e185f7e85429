import { z } from 'zod';
import { OperationStatus } from './operation.ts';
import { Outcome } from './outcome.ts';

/**
 * Everything an operation records in its stream, by type: what each event must carry (more
 * may ride along: `looseObject`). This is the one vocabulary of the audit trail. Writers are
 * checked against it (`OperationEvents.append`, `OperationStore.update`), and every view
 * (Slack, the dashboard timeline, the CLI timeline) maps every type, so a new type here is a
 * compile error until each view says how it shows it.
 */
export const OperationEventData = {
  /** The request was accepted (written with the operation, by `OperationStore.create`). */
  created: z.looseObject({ status: z.literal('queued'), type: z.string(), repo: z.string() }),
  /** A status transition: the state machine's `to`; an end carries its outcome, and its sentence for a failure. */
  status: z.looseObject({ to: OperationStatus, outcome: Outcome.optional(), reason: z.string().optional() }),
  /** A pipeline step started or finished (prepare, install, baseline, agent, verify, push…). */
  step: z.looseObject({ step: z.string(), state: z.string().optional() }),
  /** The agent moved to a phase: plan, code, verify, repair, review. */
  phase: z.looseObject({ phase: z.string() }),
  /** One model turn (the agent loop's step). */
  model: z.looseObject({ role: z.string(), turn: z.number(), text: z.string(), toolCalls: z.array(z.string()) }),
  /** One tool call (the agent loop's step). */
  tool: z.looseObject({ role: z.string(), name: z.string(), isError: z.boolean(), summary: z.string() }),
  /** One of the repository's checks ran. */
  check: z.looseObject({ name: z.string(), passed: z.boolean() }),
  /** A message from a person reached the running model. */
  message: z.looseObject({ from: z.string(), text: z.string() }),
  /** The operation waits for locks another operation holds. */
  waiting: z.looseObject({ holder: z.string() }),
  locks_acquired: z.looseObject({}),
  /** A resumable point the job reached. */
  checkpoint: z.looseObject({ step: z.string() }),
  /** Red/green evidence for a debug operation. */
  evidence: z.looseObject({ reproduced: z.boolean() }),
  /** Open branches that touch the same files. */
  overlap: z.looseObject({}),
  risk: z.looseObject({ level: z.string() }),
  approval: z.looseObject({ by: z.string() }),
  approval_pending: z.looseObject({}),
  auto_approval: z.looseObject({ approved: z.boolean() }),
  cancel_requested: z.looseObject({ by: z.string() }),
  /** Model usage metered (tokens, cost). */
  usage: z.looseObject({}),
  plan_confirmation: z.looseObject({ state: z.string() }),
  /** The spend estimate before the agent starts, and the budget pause at its threshold (pending, extended, stopped). */
  budget_estimate: z.looseObject({ estimateUsd: z.number(), basis: z.string() }),
  budget_pause: z.looseObject({ state: z.string() }),
  deploy: z.looseObject({ step: z.string() }),
  /** Per-step verification: a plan task started, verified, still red or done. */
  plan_step: z.looseObject({ taskId: z.string(), state: z.string() }),
  /** The fixer's strict JSON outcome (seed 000), or why it was not valid. */
  fix_report: z.looseObject({ round: z.number(), valid: z.boolean() }),
  /** Red CI on the PR head: what was done about it (a revision, pre-existing, needs a person). */
  ci_failure: z.looseObject({ state: z.string(), headSha: z.string() }),
  /** What runs the repository's code; `sandboxed: false` only under SANDBOX=none. */
  sandbox: z.looseObject({ runner: z.string(), sandboxed: z.boolean() }),
  /** The repository's instruction files the model was given (read from the base commit), and the ones left out. */
  instructions: z.looseObject({ files: z.array(z.looseObject({ path: z.string() })) }),
  /** One of the operation's MCP servers started with its tools, failed to start, or exited. */
  mcp: z.looseObject({ server: z.string(), state: z.string() }),
  /** How a publish's commits reached the forge: signed through its API, or pushed unsigned (and why). */
  commit_signature: z.looseObject({ state: z.string() }),
  /** The merge train merged the base into the branch. */
  base_merged: z.looseObject({}),
  /** The PR's head moved after approval (a push): the approval no longer holds. */
  head_moved: z.looseObject({ headSha: z.string() }),
  /** A revision (review feedback) was pushed: its request, the new head, the replies. */
  revision: z.looseObject({ state: z.string(), requestId: z.string() }),
  /** This operation retries another one / was retried as another one. */
  retry_of: z.looseObject({ opId: z.string(), by: z.string() }),
  retried: z.looseObject({ retryId: z.string(), by: z.string() }),
  slack_session: z.looseObject({}),
  slack_thread: z.looseObject({ channel: z.string(), ts: z.string() }),
  /**
   * The install step's egress proxy refused a connection: the host and port asked for, why
   * (`not_allowed`, `service_port`, `loopback`, `link_local`, `private`, …), the address it
   * resolved to, and the step (install, baseline, base_merge).
   */
  egress_refused: z.looseObject({ host: z.string(), port: z.number(), reason: z.string(), step: z.string() }),
  /** The stuck watchdog's report of a silent step, and its all-clear. */
  stuck: z.looseObject({ step: z.string(), idleMs: z.number() }),
  unstuck: z.looseObject({}),
} satisfies Record<string, z.ZodType<Record<string, unknown>>>;

export type OperationEventType = keyof typeof OperationEventData;
export const OperationEventType = z.enum(
  Object.keys(OperationEventData) as [OperationEventType, ...OperationEventType[]],
);

/** What a writer passes as the data of an event of type `T`. */
export type OperationEventDataOf<T extends OperationEventType> = z.input<(typeof OperationEventData)[T]>;

/** An event as a writer hands it over (`OperationStore.update`). */
export type OperationEventInput = {
  [T in OperationEventType]: { type: T; data?: OperationEventDataOf<T> };
}[OperationEventType];

/**
 * A type read from a stream that this build does not know (written by a newer version during
 * a rolling deploy, or a type since removed). Branded so it never absorbs a known type: a
 * view's `default` branch passes the type to `unknownEventType`, which only accepts this one.
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

/**
 * The end of every view's switch over event types: compiles only when every known type was
 * handled above it (what is left is an unknown type), and returns it for the view to show raw.
 */
export function unknownEventType(type: UnknownEventType): string {
  return type;
}
