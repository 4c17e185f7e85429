import {
  type KnownEvent,
  type OperationEvent,
  type OperationEventDataOut,
  type OperationEventType,
  readEvent,
} from './operation-event.ts';
import { Review } from './review.ts';

/**
 * What the event means for the timeline: `good` and `bad` are outcomes, `status` a status
 * change, `step`/`model`/`tool` the work going on, `info` a fact, `quiet` bookkeeping.
 */
export type EventTone = 'good' | 'bad' | 'status' | 'step' | 'model' | 'tool' | 'info' | 'quiet';

/** The human line for one event: the CLI prints `text`, the dashboard colours it by `tone` and links `link`. */
export interface EventDescription {
  text: string;
  tone: EventTone;
  /** A page about the event: an http(s) URL (a CI run) or a dashboard route (`#/op/<id>`). */
  link?: string;
}

type Describe<T extends OperationEventType> = (data: OperationEventDataOut<T>) => EventDescription;

const firstLine = (text: string | undefined): string => (text ?? '').split('\n')[0] ?? '';
const clip = (text: string, max = 160): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const short = (sha: string | undefined): string => (sha ?? '').slice(0, 7);
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const words = (name: string): string => {
  const text = name.replaceAll('_', ' ');
  return `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`;
};

/** A URL a line may link to: http(s) only (it may have come from a webhook payload). */
function webLink(url: string | undefined): { link: string } | Record<string, never> {
  return url && /^https?:\/\//i.test(url) ? { link: url } : {};
}

/** Each job step in words: what it is doing (started) and what it did (finished). */
const STEP_WORDS: Record<string, readonly [string, string]> = {
  claim: ['Picked up by a worker', 'Picked up by a worker'],
  feedback: ['Reading the change requests', 'Change requests read'],
  prepare: ['Preparing the working copy', 'Working copy ready'],
  resume: ['Resuming from the last push', 'Resumed'],
  install: ['Installing dependencies', 'Dependencies installed'],
  baseline: ['Running the checks on the base branch', 'Checks on the base branch done'],
  agent: ['Agent working', 'Agent finished'],
  verify: ['Running the checks', 'Checks done'],
  evidence: ['Recording the red→green evidence', 'Evidence recorded'],
  secret_scan: ['Scanning the diff for secrets', 'Secret scan done'],
  push: ['Pushing the branch', 'Branch pushed'],
  publish: ['Opening the pull request', 'Pull request published'],
  reply: ['Answering the change requests', 'Change requests answered'],
  record: ['Recording the evaluation', 'Evaluation recorded'],
  merge_lock: ['Waiting for the merge lock', 'Merge lock taken'],
  update_from_base: ['Bringing the branch up to date with its base', 'Branch up to date with its base'],
  base_merge: ['Merging the base branch into the branch', 'Base branch merged into the branch'],
  merge: ['Merging', 'Pull request merged'],
  deploy: ['Deploying', 'Deploy step done'],
  release: ['Releasing the working copy', 'Working copy released'],
};

/** What a step is doing (started) or did (finished, ready, or a step event without a state); a step never shows by its code name. */
function stepLabel(step: string, state?: string): string {
  const labels = Object.hasOwn(STEP_WORDS, step) ? STEP_WORDS[step] : undefined;
  if (!labels) return state === 'finished' ? `${words(step)} done` : words(step);
  return state === 'started' ? labels[0] : labels[1];
}

/** The agent's phases in words. */
const PHASE_LABELS = {
  plan: 'Planning',
  code: 'Coding',
  repair: 'Repairing failing checks',
  verify: 'Verifying',
  review: 'Reviewing the change',
} as const satisfies Record<OperationEventDataOut<'phase'>['phase'], string>;

/**
 * Roles answer in JSON (the planner's plan, the reviewer's verdict, a revision's replies):
 * the line says what they decided, never the raw text.
 */
function jsonAnswer(role: string, text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  if (/^\{\s*"replies"/.test(trimmed)) return 'answered the change requests (see the ledger)';
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    value = undefined;
  }
  const review = Review.safeParse(value);
  if (role === 'reviewer' || review.success) {
    if (!review.success) return 'answered (not valid JSON)';
    if (review.data.decision === 'accept') return 'accepted the change';
    const why = review.data.must_fix[0] ?? review.data.reasons[0];
    return `asked for changes${why ? `: ${clip(why, 120)}` : ''}`;
  }
  // The text may be cut short for the event: the summary is read even from a partial object.
  const summary = /"summary"\s*:\s*"((?:[^"\\]|\\.)*)/.exec(trimmed)?.[1];
  return summary ? `proposed a plan: ${clip(summary, 120)}` : 'answered in JSON';
}

const stepLine: Describe<'step'> = (d) => {
  if (d.step === 'prepare' && d.branch)
    return { text: `Branch ${d.branch}${d.resumed ? ' (resumed)' : ''}`, tone: 'step' };
  if (d.step === 'policy') {
    const n = d.approvals ?? 1;
    const rules = [
      `${plural(n, 'approval')} needed`,
      d.autoApprove ? 'auto-approval allowed' : '',
      d.deploy ? `deploys by ${d.deploy}` : '',
    ].filter(Boolean);
    return { text: `Policy${d.file ? ` (with ${d.file})` : ''}: ${rules.join(', ')}`, tone: 'quiet' };
  }
  if (d.step === 'push' && d.headSha) return { text: `Pushed ${short(d.headSha)}`, tone: 'step' };
  if (d.step === 'agent' && d.state === 'finished' && d.outcome) {
    const repairs = d.repairs ? `, ${plural(d.repairs, 'repair round')}` : '';
    return { text: `Agent finished (${d.outcome}${repairs})`, tone: 'step' };
  }
  if (d.step === 'baseline' && d.checks && !Array.isArray(d.checks)) {
    const failing = Object.entries(d.checks)
      .filter(([, passed]) => !passed)
      .map(([name]) => name);
    const cached = d.cached ? ' (cached)' : '';
    return {
      text: `Base branch${cached}: ${failing.length ? `${failing.join(', ')} failing` : 'checks pass'}`,
      tone: 'step',
    };
  }
  if (d.step === 'secret_scan' && d.findings !== undefined) {
    return d.findings
      ? { text: `Secret scan: ${d.findings} finding(s)`, tone: 'bad' }
      : { text: 'Secret scan: clean', tone: 'good' };
  }
  if (d.step === 'verify' && d.state === 'finished') {
    if (d.unchanged) return { text: 'Nothing changed: the checks on the head stand', tone: 'info' };
    return d.passed ? { text: 'All checks passed', tone: 'good' } : { text: 'Checks failed', tone: 'bad' };
  }
  if (d.state === 'finished' && d.skipped)
    return { text: `${stepLabel(d.step, 'started')}: skipped, ${d.skipped}`, tone: 'quiet' };
  return { text: stepLabel(d.step, d.state), tone: 'step' };
};

const DEPLOY_LINES: { [S in OperationEventDataOut<'deploy'>['step']]: Describe<'deploy'> } = {
  started: (d) => ({ text: `Deploy to ${d.target ?? 'the target'} started by ${d.by ?? 'someone'}`, tone: 'status' }),
  triggered: () => ({ text: 'Deploy taken by the target', tone: 'info' }),
  status: (d) => ({ text: `Deploy status: ${d.state ?? 'unknown'}`, tone: 'info' }),
  succeeded: () => ({ text: 'Deployed', tone: 'good' }),
  failed: (d) => ({ text: `Deploy failed${d.reason ? `: ${firstLine(d.reason)}` : ''}`, tone: 'bad' }),
  rollback_started: () => ({ text: 'Rolling back the deploy', tone: 'bad' }),
  rolled_back: () => ({ text: 'Deploy rolled back', tone: 'bad' }),
  rollback_failed: (d) => ({ text: `Rollback failed${d.reason ? `: ${firstLine(d.reason)}` : ''}`, tone: 'bad' }),
  finished: (d) => ({ text: `Deploy finished: ${d.status ?? 'done'}`, tone: d.status === 'failed' ? 'bad' : 'info' }),
};

/** An operation's status as people read it: every view's label (the dashboard's is generated from it). */
export const STATUS_LABELS: Record<OperationEventDataOut<'status'>['to'], string> = {
  queued: 'Queued',
  running: 'Running',
  awaiting_approval: 'Awaiting approval',
  approved: 'Approved',
  merging: 'Merging',
  merged: 'Merged',
  rejected: 'Rejected',
  failed: 'Failed',
  cancelled: 'Cancelled',
  evaluated: 'Evaluated',
};

const PLAN_STEP_WORDS = {
  started: 'started',
  verified: 'verified: its checks pass',
  failed: 'still red',
  done: 'done',
};

/**
 * One line per event type. The map names every type of `OperationEventData`: a new type does
 * not compile until it says how it reads.
 */
const DESCRIBE: { [T in OperationEventType]: Describe<T> } = {
  created: (d) => ({
    text: `Created${d.requester ? ` by ${d.requester.user} via ${d.requester.source}` : ''}: ${d.type} on ${d.repo}`,
    tone: 'info',
  }),
  status: (d) => {
    const as = d.to === 'merged' && d.mergeSha ? ` as ${short(d.mergeSha)}` : '';
    const by = d.by ? ` by ${d.by}` : '';
    const why = d.reason ? `: ${firstLine(d.reason)}` : '';
    const tone = ['failed', 'rejected', 'cancelled'].includes(d.to) ? 'bad' : d.to === 'merged' ? 'good' : 'status';
    return { text: `${STATUS_LABELS[d.to]}${as}${by}${why}`, tone };
  },
  step: stepLine,
  phase: (d) => {
    if (d.phase === 'plan' && d.plan)
      return {
        text: `Plan ${d.plan.plan_id ?? ''} ready: ${d.plan.steps.map((s) => s.id ?? s.title).join(', ')}${d.note ? ` (${d.note})` : ''}`,
        tone: 'status',
      };
    if (d.phase === 'repair')
      return {
        text: `Repair round ${d.round ?? '?'}${d.taskId ? ` on ${d.taskId}` : ''}: ${(d.failing ?? []).join(', ')}`,
        tone: 'bad',
      };
    return { text: PHASE_LABELS[d.phase], tone: 'status' };
  },
  model: (d) => {
    const role = d.role ? `${d.role[0]?.toUpperCase()}${d.role.slice(1)} · ` : '';
    const verdict = jsonAnswer(d.role, d.text);
    if (verdict) return { text: `${role}turn ${d.turn}: ${verdict}`, tone: 'model' };
    const tools = d.toolCalls.length ? ` → ${d.toolCalls.join(', ')}` : '';
    return { text: `${role}turn ${d.turn}${d.text ? `: ${clip(firstLine(d.text))}` : ''}${tools}`, tone: 'model' };
  },
  tool: (d) => ({ text: `${d.name}: ${clip(firstLine(d.summary))}`, tone: d.isError ? 'bad' : 'tool' }),
  check: (d) => ({
    text: `Check ${d.name} ${d.passed ? 'passed' : `failed (exit ${d.exitCode ?? '?'})`} in ${Math.round(d.durationMs)} ms${d.reused ? ' (reused)' : ''}`,
    tone: d.passed ? 'good' : 'bad',
  }),
  message: (d) => ({ text: `${d.from} (${d.source}): ${firstLine(d.text)}`, tone: 'info' }),
  waiting: (d) => ({
    text:
      d.lock === 'merge'
        ? `Waiting for the merge lock (${d.holder})`
        : `Waiting for ${(d.files ?? []).join(', ') || 'files'} (held by ${d.holder})`,
    tone: 'info',
  }),
  locks_acquired: (d) => ({ text: `Locked ${d.files.join(', ') || 'its files'}`, tone: 'quiet' }),
  checkpoint: (d) => ({ text: `Checkpoint ${d.step}`, tone: 'quiet' }),
  // Red → green: the tests that failed before the change and pass after it (the same tests).
  evidence: (d) =>
    d.reproduced
      ? { text: `Reproduced: ${plural(d.red.length, 'test')} failing before, passing after`, tone: 'good' }
      : { text: `Not reproduced by a failing test${d.note ? ` (${firstLine(d.note)})` : ''}`, tone: 'info' },
  overlap: (d) => ({ text: `Overlaps open branches on ${d.files.join(', ')}`, tone: 'bad' }),
  risk: (d) => ({
    text: `Risk: ${d.level}${d.reasons.length ? ` (${d.reasons.join('; ')})` : ''}`,
    tone: d.level === 'high' ? 'bad' : 'info',
  }),
  approval: (d) => ({ text: `Approval by ${d.by} (${d.source})`, tone: 'good' }),
  approval_pending: (d) => ({
    text: `Approvals: ${d.approvals} given${d.missing.length ? `, still needed: ${d.missing.join('; ')}` : ''}`,
    tone: 'info',
  }),
  auto_approval: (d) =>
    d.approved
      ? { text: `Auto-approved by policy${d.rule ? ` (${d.rule})` : ''}`, tone: 'good' }
      : { text: `Not auto-approved${d.reasons?.length ? `: ${d.reasons.join('; ')}` : ''}`, tone: 'quiet' },
  cancel_requested: (d) => ({ text: `Cancel requested by ${d.by}`, tone: 'bad' }),
  usage: (d) => ({
    text: `Model call: ${d.inputTokens} in, ${d.outputTokens} out, $${d.costUsd.toFixed(4)}`,
    tone: 'quiet',
  }),
  plan_confirmation: (d) => {
    if (d.state === 'pending') return { text: 'Plan waiting for Start', tone: 'info' };
    if (d.state === 'started') return { text: `Plan started by ${d.by ?? 'someone'}`, tone: 'good' };
    if (d.state === 'modified')
      return { text: `Plan modified by ${d.by ?? 'someone'}: ${clip(firstLine(d.note))}`, tone: 'info' };
    return { text: `Plan cancelled${d.by ? ` by ${d.by}` : ''}`, tone: 'bad' };
  },
  deploy: (d) => DEPLOY_LINES[d.step](d),
  budget_estimate: (d) => ({
    text: `Estimated spend $${d.estimateUsd.toFixed(2)} (${d.basis === 'history' ? `median of the last ${d.samples} operation(s) of this type` : 'the policy’s default'}) of a $${d.limitUsd.toFixed(2)} budget`,
    tone: 'info',
  }),
  budget_pause: (d) =>
    d.state === 'pending'
      ? { text: `Paused at ${d.percent ?? '?'} % of the budget: extend or stop`, tone: 'bad' }
      : d.state === 'extended'
        ? {
            text: `Budget extended${d.amountUsd ? ` by $${d.amountUsd.toFixed(2)}` : ''}${d.by ? ` by ${d.by}` : ''}`,
            tone: 'status',
          }
        : {
            text: `Stopped at the budget${d.by === 'timeout' ? ': nobody answered' : d.by ? ` by ${d.by}` : ''}`,
            tone: 'bad',
          },
  commit_signature: (d) =>
    d.state === 'forge'
      ? { text: `Commits ${short(d.headSha)} signed by the forge`, tone: 'good' }
      : {
          text: `Commits pushed unsigned${d.reason ? `: ${firstLine(d.reason)}` : ''}`,
          tone: d.reason ? 'bad' : 'quiet',
        },
  plan_step: (d) => ({
    text: `${d.taskId} ${PLAN_STEP_WORDS[d.state]}: ${clip(d.title)}`,
    tone: d.state === 'failed' ? 'bad' : d.state === 'verified' ? 'good' : 'step',
  }),
  // The fixer's strict JSON (seed 000): what it says it fixed; the checks that follow say whether it did.
  fix_report: (d) => {
    const round = `Fixer round ${d.round}${d.taskId ? ` (${d.taskId})` : ''}`;
    if (!d.valid || !d.report) return { text: `${round}: report not valid (${clip(d.problem ?? '')})`, tone: 'bad' };
    const r = d.report;
    const fixes = r.fixes_applied.map((f) => `${f.file}${f.line ? `:${f.line}` : ''} ${f.error_type}`).join(', ');
    const left = r.remaining_errors.length ? `; ${r.remaining_errors.length} error(s) left` : '';
    return {
      text: `${round}: ${r.status}, build ${r.build_status}${fixes ? ` — ${clip(fixes)}` : ''}${left}`,
      tone: r.status === 'fixed' ? 'good' : 'bad',
    };
  },
  ci_failure: (d) => {
    const head = short(d.headSha);
    const checks = (d.checks ?? []).join(', ');
    const unread = d.missingPermissions?.length
      ? ` (job logs not read: the installation lacks ${d.missingPermissions.join(', ')})`
      : '';
    const text = {
      revision_queued: `CI red on ${head} (${checks}): revision ${d.attempt ?? '?'} of ${d.of ?? '?'}${unread}`,
      needs_human: `CI red on ${head} (${checks}) after ${d.attempts ?? 0} automatic revisions: needs a person`,
      pre_existing: `CI red on ${head} only where the base is red too (${(d.preExisting ?? []).join(', ')}): no revision`,
      unreadable: `CI red on ${head}, but its checks could not be read: ${firstLine(d.reason)}`,
    }[d.state];
    return { text, tone: d.state === 'needs_human' ? 'bad' : 'info', ...webLink(d.runUrl) };
  },
  sandbox: (d) =>
    d.sandboxed
      ? { text: `Checks run in the ${d.runner} sandbox`, tone: 'quiet' }
      : { text: 'Checks run WITHOUT a sandbox (SANDBOX=none)', tone: 'bad' },
  instructions: (d) => {
    const left = d.skipped?.length ? `; not read: ${d.skipped.map((f) => f.path).join(', ')}` : '';
    return { text: `Repository instructions: ${d.files.map((f) => f.path).join(', ') || 'none'}${left}`, tone: 'info' };
  },
  mcp: (d) => {
    if (d.state === 'ready')
      return { text: `MCP server ${d.server} ready: ${(d.tools ?? []).join(', ') || 'no tools'}`, tone: 'quiet' };
    const what =
      d.state === 'failed' ? `did not start${d.required ? ' (required)' : ', going on without it'}` : 'stopped';
    return { text: `MCP server ${d.server} ${what}: ${firstLine(d.reason)}`, tone: 'bad' };
  },
  base_merged: (d) => ({
    text: `Base branch merged into the branch at ${short(d.headSha)}; ${plural(d.checks.length, 'check')} re-run`,
    tone: 'info',
  }),
  head_moved: (d) => ({ text: `New push ${short(d.headSha)}: approval withdrawn`, tone: 'bad' }),
  revision: (d) => {
    if (d.state === 'requested')
      return { text: `Changes requested: ${d.requests ?? 'some'} request(s) to address`, tone: 'status' };
    return d.changed === false
      ? { text: 'Revision done: no change was needed', tone: 'info' }
      : { text: `Revision pushed ${short(d.headSha)}`, tone: 'good' };
  },
  retry_of: (d) => ({ text: `Retry of ${d.opId} by ${d.by}`, tone: 'info', link: `#/op/${d.opId}` }),
  retried: (d) => ({ text: `Retried by ${d.by} as ${d.retryId}`, tone: 'info', link: `#/op/${d.retryId}` }),
  slack_session: () => ({ text: 'Followed in Slack', tone: 'quiet' }),
  slack_thread: () => ({ text: 'Slack thread started', tone: 'quiet' }),
  egress_refused: (d) => ({
    text: `${words(d.step)} step: connection to ${d.host}:${d.port} refused (${d.reason.replaceAll('_', ' ')})`,
    tone: 'bad',
  }),
  stuck: (d) => ({
    text: `No progress${d.step ? ` in ${d.step}` : ''} for ${Math.round(d.idleMs / 1000)} s`,
    tone: 'bad',
  }),
  unstuck: (d) => ({ text: `Moving again after ${Math.round(d.afterMs / 1000)} s`, tone: 'info' }),
};

function describeKnown(e: KnownEvent): EventDescription {
  // The map is typed per type; indexed by a union, the compiler cannot pair the describer with its data.
  const describe = DESCRIBE[e.type] as (data: KnownEvent['data']) => EventDescription;
  return describe(e.data);
}

/**
 * The one human line for an event: the CLI prints it, Slack decorates it, the API sends it
 * with every streamed event (`description`) and the dashboard renders it. A type this build
 * does not know, or data that does not fit its schema (an older record), reads as its type name.
 */
export function describeEvent(e: OperationEvent): EventDescription {
  const known = readEvent(e);
  return known ? describeKnown(known) : { text: e.type, tone: 'info' };
}

/** An event as the API sends it (the stream and the list): with its line, so no view re-derives it. */
export interface DescribedEvent extends OperationEvent {
  description: EventDescription;
}

export function withDescription(e: OperationEvent): DescribedEvent {
  return { ...e, description: describeEvent(e) };
}
