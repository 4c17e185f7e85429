// Reading the operation's event stream: one line per event, and what is happening now.
import { STATUS_LABELS } from './dom.js';

/** A URL the timeline may link to: http(s) only (the value came from a webhook payload). */
export function webLink(url) {
  return typeof url === 'string' && /^https?:\/\//i.test(url) ? url : undefined;
}

/**
 * Whether an event of each type comes with a change to the operation record (written by
 * `OperationStore.update` in the same script), so the page fetches the record again. Typed
 * by core's event types: a new type must say. (risk, approval, waiting and the plan's state were
 * missing from a hand-kept list: the page showed them only once another listed event came.)
 * @type {{ [T in import('@pullwright/core').OperationEventType]: boolean }}
 */
export const CHANGES_RECORD = {
  created: true,
  status: true,
  step: true,
  phase: true,
  check: true,
  evidence: true,
  checkpoint: true,
  usage: true,
  cancel_requested: true,
  retried: true,
  waiting: true,
  locks_acquired: true,
  overlap: true,
  risk: true,
  approval: true,
  plan_confirmation: true,
  budget_estimate: true,
  budget_pause: true,
  deploy: true,
  commit_signature: false,
  sandbox: true,
  plan_step: false,
  fix_report: false,
  ci_failure: false,
  base_merged: true,
  head_moved: true,
  slack_thread: true,
  stuck: true,
  unstuck: true,
  model: false,
  tool: false,
  message: false,
  approval_pending: false,
  auto_approval: false,
  revision: true,
  retry_of: false,
  slack_session: false,
  instructions: false,
  mcp: false,
  egress_refused: false,
};

/**
 * The line for one event: the API sends it with the event (`description`, core
 * `describeEvent`), so the page shows what the CLI prints instead of re-deriving it.
 * @param {import('@pullwright/core').DescribedEvent} e
 * @returns {import('@pullwright/core').EventDescription}
 */
export function describeEvent(e) {
  return e.description ?? { text: e.type, tone: 'info' };
}

/**
 * What the operation is doing now: a label, when that began, and when it last said anything
 * (a quiet agent for minutes is worth noticing).
 */
export function currentStep(op, events) {
  const last = events.at(-1);
  const lastOutput = last?.ts ?? op.updatedAt;
  const statusSince =
    [...events].reverse().find((e) => e.type === 'status' && e.data?.to === op.status)?.ts ?? op.updatedAt;
  switch (op.status) {
    case 'queued':
      return { label: 'Waiting for a worker', since: op.createdAt, lastOutput, active: true };
    case 'running': {
      let label = 'Starting';
      let since = statusSince;
      let detail = '';
      for (const e of events) {
        // A started step's line and a phase's line say what is going on (core `describeEvent`).
        if (e.type === 'step' && e.data?.state === 'started') {
          label = describeEvent(e).text;
          since = e.ts;
          detail = '';
        }
        if (e.type === 'phase' && !e.data?.plan) {
          label = describeEvent(e).text;
          since = e.ts;
          detail = '';
        }
        if (e.type === 'model') detail = `${e.data?.role ?? 'model'} turn ${e.data?.turn}`;
        if (e.type === 'check') detail = `${e.data?.name} ${e.data?.passed ? 'passed' : 'failed'}`;
      }
      if (op.cancelRequested) detail = 'cancel requested';
      // Nothing runs until a person answers (Start on the plan, Extend / Stop at the budget): say who is waited for.
      const waitingFor =
        op.planConfirmation?.state === 'pending'
          ? { type: 'plan_confirmation', label: 'Waiting for approval of the plan' }
          : op.budgetContract?.pause?.state === 'pending'
            ? { type: 'budget_pause', label: 'Paused at its budget: extend or stop' }
            : undefined;
      if (waitingFor) {
        const asked = [...events].reverse().find((e) => e.type === waitingFor.type && e.data?.state === 'pending');
        return { label: waitingFor.label, detail, since: asked?.ts ?? since, lastOutput, active: true };
      }
      return { label, detail, since, lastOutput, active: true, quiet: true };
    }
    case 'awaiting_approval':
      return { label: 'Waiting for approval', since: statusSince, lastOutput, active: true };
    case 'approved':
    case 'merging':
      return { label: 'Merging', since: statusSince, lastOutput, active: true };
    default:
      return {
        label: STATUS_LABELS[op.status] ?? op.status,
        since: op.createdAt,
        until: statusSince,
        lastOutput,
        active: false,
      };
  }
}
