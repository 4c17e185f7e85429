// Reading the operation's event stream: one line per event, and what is happening now.
import { STATUS_LABELS } from './dom.js';

/**
 * Each job step in words: what it is doing, and what it did once finished. A step the
 * operation records under its code name (`publish`, `merge_lock`, `update_from_base`) is
 * never shown by that name.
 */
const STEPS = {
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

/** A step name this page does not know, in words: `some_step` → "Some step". */
function stepWords(step) {
  const words = String(step ?? 'step').replaceAll('_', ' ');
  return `${words[0]?.toUpperCase() ?? ''}${words.slice(1)}`;
}

/** What a step is doing (started) or did (finished, or a step event without a state). */
function stepLabel(step, state) {
  const labels = Object.hasOwn(STEPS, step) ? STEPS[step] : undefined;
  if (!labels) return state === 'finished' ? `${stepWords(step)} done` : stepWords(step);
  return state === 'started' ? labels[0] : labels[1];
}

const PHASE_LABELS = {
  plan: 'Planning',
  code: 'Coding',
  repair: 'Repairing failing checks',
  verify: 'Verifying',
  review: 'Reviewing the change',
};

function roleOf(d) {
  return d.role ? `${d.role[0].toUpperCase()}${d.role.slice(1)} · ` : '';
}

function firstLine(text) {
  return String(text ?? '').split('\n')[0];
}

function clip(text, max = 160) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Roles answer in JSON (the planner's plan, the reviewer's verdict, a revision's replies):
 * the timeline says what they decided, never the raw text.
 */
function jsonAnswer(d) {
  const text = typeof d.text === 'string' ? d.text.trim() : '';
  if (!text.startsWith('{')) return undefined;
  if (/^\{\s*"replies"/.test(text)) return 'answered the change requests (see the ledger)';
  let v;
  try {
    v = JSON.parse(text);
  } catch {
    v = undefined;
  }
  if (d.role === 'reviewer' || v?.decision) {
    if (v?.decision === 'accept') return 'accepted the change';
    if (!v) return 'answered (not valid JSON)';
    const why = v.must_fix?.[0] ?? v.reasons?.[0];
    return `asked for changes${why ? `: ${clip(String(why), 120)}` : ''}`;
  }
  // The text may be cut short for the event: read the summary even from a partial object.
  const summary = v?.summary ?? /"summary"\s*:\s*"((?:[^"\\]|\\.)*)/.exec(text)?.[1];
  return summary ? `proposed a plan: ${clip(String(summary), 120)}` : 'answered in JSON';
}

const DEPLOY_STEPS = {
  started: (d) => ({ text: `Deploy to ${d.target ?? 'the target'} started by ${d.by ?? 'someone'}`, tone: 'status' }),
  triggered: () => ({ text: 'Deploy taken by the target', tone: 'info' }),
  status: (d) => ({ text: `Deploy status: ${d.state}`, tone: 'info' }),
  succeeded: () => ({ text: 'Deployed', tone: 'good' }),
  failed: (d) => ({ text: `Deploy failed${d.reason ? `: ${firstLine(d.reason)}` : ''}`, tone: 'bad' }),
  rollback_started: () => ({ text: 'Rolling back the deploy', tone: 'bad' }),
  rolled_back: () => ({ text: 'Deploy rolled back', tone: 'bad' }),
  rollback_failed: (d) => ({ text: `Rollback failed${d.reason ? `: ${firstLine(d.reason)}` : ''}`, tone: 'bad' }),
  finished: (d) => ({ text: `Deploy finished: ${d.status ?? 'done'}`, tone: d.status === 'failed' ? 'bad' : 'info' }),
};

/** A URL the timeline may link to: http(s) only (the value came from a webhook payload). */
export function webLink(url) {
  return typeof url === 'string' && /^https?:\/\//i.test(url) ? url : undefined;
}

/** A lifecycle line that needs no detail: shown by its label. */
const line =
  (text, tone = 'quiet') =>
  () => ({ text, tone });

/**
 * `{ text, tone, link? }` for each event type; tone colours the timeline dot. `npm run
 * typecheck` checks this map against core's `OperationEventType`: a type the operation can
 * record and the timeline cannot show is a compile error, not an "unknown" line.
 * @type {{ [T in import('@pullwright/core').OperationEventType]: (d: any) => { text: string, tone: string, link?: string } }}
 */
const DESCRIBE = {
  created: (d) => ({
    text: `Created by ${d.requester?.user ?? 'someone'} via ${d.requester?.source ?? '?'}`,
    tone: 'info',
  }),
  ci_failure: (d) => {
    const checks = (d.checks ?? []).join(', ');
    const head = String(d.headSha ?? '').slice(0, 7);
    const text = {
      revision_queued: `CI red on ${head} (${checks}): revision ${d.attempt} of ${d.of}${d.missingPermissions ? ` (job logs not read: the installation lacks ${d.missingPermissions.join(', ')})` : ''}`,
      needs_human: `CI red on ${head} (${checks}) after ${d.attempts} automatic revisions: needs a person`,
      pre_existing: `CI red on ${head} only where the base is red too (${(d.preExisting ?? []).join(', ')}): no revision`,
      unreadable: `CI red on ${head}, but its checks could not be read: ${firstLine(d.reason)}`,
    }[d.state];
    const link = webLink(d.runUrl);
    return {
      text: text ?? `CI red on ${head}`,
      tone: d.state === 'needs_human' ? 'bad' : 'info',
      ...(link ? { link } : {}),
    };
  },
  status: (d) => {
    const to = STATUS_LABELS[d.to] ?? d.to;
    const by = d.by ? ` by ${d.by}` : '';
    const why = d.reason ? `: ${firstLine(d.reason)}` : '';
    const as = d.to === 'merged' && d.mergeSha ? ` as ${String(d.mergeSha).slice(0, 7)}` : '';
    const tone = ['failed', 'rejected', 'cancelled'].includes(d.to) ? 'bad' : d.to === 'merged' ? 'good' : 'status';
    return { text: `${to}${as}${by}${why}`, tone };
  },
  step: (d) => {
    if (d.step === 'prepare' && d.branch)
      return { text: `Branch ${d.branch}${d.resumed ? ' (resumed)' : ''}`, tone: 'step' };
    if (d.step === 'policy') {
      const n = d.approvals ?? 1;
      const rules = [
        `${n} approval${n === 1 ? '' : 's'} needed`,
        d.autoApprove ? 'auto-approval allowed' : '',
        d.deploy ? `deploys by ${d.deploy}` : '',
      ].filter(Boolean);
      return { text: `Policy${d.file ? ` (with ${d.file})` : ''}: ${rules.join(', ')}`, tone: 'quiet' };
    }
    if (d.step === 'push') return { text: `Pushed ${String(d.headSha ?? '').slice(0, 7)}`, tone: 'step' };
    if (d.step === 'agent' && d.state === 'finished') {
      const how = d.outcome ? ` (${d.outcome}${d.repairs ? `, ${d.repairs} repair rounds` : ''})` : '';
      return { text: `Agent finished${how}`, tone: 'step' };
    }
    if (d.step === 'baseline' && d.checks && typeof d.checks === 'object') {
      const failing = Object.entries(d.checks)
        .filter(([, passed]) => !passed)
        .map(([name]) => name);
      return { text: `Base branch: ${failing.length ? `${failing.join(', ')} failing` : 'checks pass'}`, tone: 'step' };
    }
    if (d.step === 'secret_scan') {
      return d.findings
        ? { text: `Secret scan: ${d.findings} finding(s)`, tone: 'bad' }
        : { text: 'Secret scan: clean', tone: 'good' };
    }
    if (d.step === 'verify' && d.state === 'finished') {
      if (d.unchanged) return { text: 'Nothing changed: the checks on the head stand', tone: 'info' };
      return { text: d.passed ? 'All checks passed' : 'Checks failed', tone: d.passed ? 'good' : 'bad' };
    }
    if (d.state === 'finished' && d.skipped)
      return { text: `${stepLabel(d.step, 'started')}: skipped, ${d.skipped}`, tone: 'quiet' };
    return { text: stepLabel(d.step, d.state), tone: 'step' };
  },
  phase: (d) => {
    if (d.phase === 'plan' && d.plan)
      return {
        text: `Plan ${d.plan.plan_id ?? ''} ready: ${(d.plan.steps ?? []).map((st) => st.id).join(', ') || 'no steps'}${d.note ? ` (${d.note})` : ''}`,
        tone: 'status',
      };
    if (d.phase === 'repair')
      return {
        text: `Repair round ${d.round}${d.taskId ? ` on ${d.taskId}` : ''}: ${(d.failing ?? []).join(', ')}`,
        tone: 'bad',
      };
    return { text: PHASE_LABELS[d.phase] ?? d.phase, tone: 'status' };
  },
  model: (d) => {
    const verdict = jsonAnswer(d);
    if (verdict) return { text: `${roleOf(d)}turn ${d.turn}: ${verdict}`, tone: 'model' };
    const tools = Array.isArray(d.toolCalls) && d.toolCalls.length ? ` → ${d.toolCalls.join(', ')}` : '';
    return { text: `${roleOf(d)}turn ${d.turn}${d.text ? `: ${clip(firstLine(d.text))}` : ''}${tools}`, tone: 'model' };
  },
  tool: (d) => ({ text: `${d.name}: ${clip(firstLine(d.summary))}`, tone: d.isError ? 'bad' : 'tool' }),
  evidence: (d) => ({
    text: d.reproduced
      ? `Reproduced: ${d.red?.length ?? 0} failing before, passing after`
      : 'Not reproduced by a failing test',
    tone: d.reproduced ? 'good' : 'info',
  }),
  checkpoint: (d) => ({ text: `Checkpoint ${d.step}`, tone: 'quiet' }),
  plan_step: (d) => {
    const states = { started: 'started', verified: 'verified: its checks pass', failed: 'still red', done: 'done' };
    const tone = d.state === 'failed' ? 'bad' : d.state === 'verified' ? 'good' : 'step';
    return { text: `${d.taskId} ${states[d.state] ?? d.state}: ${clip(d.title ?? '')}`, tone };
  },
  fix_report: (d) => {
    // The fixer's strict JSON (seed 000): what it says it fixed; the checks that follow say whether it did.
    if (!d.valid) return { text: `Fixer round ${d.round}: report not valid (${clip(d.problem ?? '')})`, tone: 'bad' };
    const r = d.report;
    const fixes = (r.fixes_applied ?? [])
      .map((f) => `${f.file}${f.line ? `:${f.line}` : ''} ${f.error_type}`)
      .join(', ');
    const left = r.remaining_errors?.length ? `; ${r.remaining_errors.length} error(s) left` : '';
    return {
      text: `Fixer round ${d.round}${d.taskId ? ` (${d.taskId})` : ''}: ${r.status}, build ${r.build_status}${fixes ? ` — ${clip(fixes)}` : ''}${left}`,
      tone: r.status === 'fixed' ? 'good' : 'bad',
    };
  },
  check: (d) => ({ text: `Check ${d.name} ${d.passed ? 'passed' : 'failed'}`, tone: d.passed ? 'good' : 'bad' }),
  message: (d) => ({ text: `${d.from} (${d.source}): ${firstLine(d.text)}`, tone: 'info' }),
  cancel_requested: (d) => ({ text: `Cancel requested by ${d.by}`, tone: 'bad' }),
  retried: (d) => ({ text: `Retried by ${d.by} as ${d.retryId}`, tone: 'info', link: `#/op/${d.retryId}` }),
  retry_of: (d) => ({ text: `Retry of ${d.opId} by ${d.by}`, tone: 'info', link: `#/op/${d.opId}` }),
  usage: (d) => ({ text: `Model call: ${d.inputTokens ?? 0} in, ${d.outputTokens ?? 0} out`, tone: 'quiet' }),
  approval: (d) => ({ text: `Approval by ${d.by} (${d.source})`, tone: 'good' }),
  approval_pending: (d) => ({
    text: `Approvals: ${d.approvals ?? 0} given${Array.isArray(d.missing) && d.missing.length ? `, still needed: ${d.missing.join('; ')}` : ''}`,
    tone: 'info',
  }),
  risk: (d) => ({ text: `Risk: ${d.level}`, tone: d.level === 'high' ? 'bad' : 'info' }),
  waiting: (d) => ({
    text:
      d.lock === 'merge'
        ? `Waiting for the merge lock (${d.holder})`
        : `Waiting for ${(d.files ?? []).join(', ')} (held by ${d.holder})`,
    tone: 'info',
  }),
  locks_acquired: (d) => ({ text: `Locked ${(d.files ?? []).join(', ') || 'its files'}`, tone: 'quiet' }),
  overlap: (d) => ({ text: `Overlaps open branches on ${(d.files ?? []).join(', ')}`, tone: 'bad' }),
  base_merged: line('Base branch merged into the branch; checks re-run', 'info'),
  head_moved: (d) => ({ text: `New push ${String(d.headSha ?? '').slice(0, 7)}: approval withdrawn`, tone: 'bad' }),
  budget_estimate: (d) => ({
    text: `Estimated spend $${Number(d.estimateUsd).toFixed(2)} (${d.basis === 'history' ? `median of ${d.samples} earlier operation(s)` : "the policy's default"}) of a $${Number(d.limitUsd).toFixed(2)} budget`,
    tone: 'info',
  }),
  budget_pause: (d) => {
    if (d.state === 'pending') return { text: `Paused at ${d.percent} % of the budget: extend or stop`, tone: 'bad' };
    if (d.state === 'extended')
      return { text: `Budget extended by $${Number(d.amountUsd).toFixed(2)} by ${d.by ?? 'someone'}`, tone: 'good' };
    return {
      text:
        d.by === 'timeout' ? 'Nobody answered at the budget: stopped' : `Stopped at the budget by ${d.by ?? 'someone'}`,
      tone: 'bad',
    };
  },
  plan_confirmation: (d) => {
    if (d.state === 'started') return { text: `Plan started by ${d.by ?? 'someone'}`, tone: 'good' };
    if (d.state === 'modified')
      return { text: `Plan modified by ${d.by ?? 'someone'}: ${clip(firstLine(d.note))}`, tone: 'info' };
    return {
      text: d.state === 'pending' ? 'Plan waiting for Start' : `Plan ${d.state}${d.by ? ` by ${d.by}` : ''}`,
      tone: d.state === 'cancelled' ? 'bad' : 'info',
    };
  },
  auto_approval: (d) => ({ text: d.approved ? 'Auto-approved by policy' : 'Not auto-approved', tone: 'quiet' }),
  deploy: (d) => DEPLOY_STEPS[d.step]?.(d) ?? { text: `Deploy: ${d.step}`, tone: 'info' },
  commit_signature: (d) =>
    d.state === 'forge'
      ? { text: 'Commits signed by the forge (Verified)', tone: 'quiet' }
      : d.reason
        ? { text: `Commits pushed UNSIGNED: ${d.reason}`, tone: 'bad' }
        : { text: 'Commits pushed (the forge signs none)', tone: 'quiet' },
  sandbox: (d) =>
    d.sandboxed
      ? { text: `Checks run in the ${d.runner} sandbox`, tone: 'quiet' }
      : { text: 'Checks run WITHOUT a sandbox (SANDBOX=none)', tone: 'bad' },
  instructions: (d) => {
    const files = (d.files ?? []).map((f) => f.path);
    const left = (d.skipped ?? []).length ? `; not read: ${d.skipped.map((f) => f.path).join(', ')}` : '';
    return { text: `Repository instructions: ${files.join(', ') || 'none'}${left}`, tone: 'info' };
  },
  mcp: (d) => {
    if (d.state === 'ready')
      return { text: `MCP server ${d.server} ready: ${(d.tools ?? []).join(', ') || 'no tools'}`, tone: 'quiet' };
    const what =
      d.state === 'failed' ? `did not start${d.required ? ' (required)' : ', going on without it'}` : 'stopped';
    return { text: `MCP server ${d.server} ${what}: ${firstLine(d.reason)}`, tone: 'bad' };
  },
  revision: (d) => {
    if (d.state === 'requested')
      return { text: `Changes requested: ${d.requests ?? 'some'} request(s) to address`, tone: 'status' };
    if (d.state === 'pushed')
      return d.changed === false
        ? { text: 'Revision done: no change was needed', tone: 'info' }
        : { text: `Revision pushed ${String(d.headSha ?? '').slice(0, 7)}`, tone: 'good' };
    return { text: `Revision ${d.state ?? ''}`.trim(), tone: 'info' };
  },
  slack_session: line('Followed in Slack'),
  slack_thread: line('Slack thread started'),
  stuck: (d) => ({ text: `No progress in ${d.step} for ${Math.round((d.idleMs ?? 0) / 60_000)} min`, tone: 'bad' }),
  unstuck: line('Moving again', 'info'),
  egress_refused: (d) => ({
    text: `${d.step} step: connection to ${d.host}:${d.port} refused (${String(d.reason).replaceAll('_', ' ')})`,
    tone: 'bad',
  }),
};

/**
 * Whether an event of each type comes with a change to the operation record (written by
 * `OperationStore.update` in the same script), so the page fetches the record again. Typed
 * like DESCRIBE: a new type must say. (risk, approval, waiting and the plan's state were
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

/** `{ text, tone, link? }` for one event; a type newer than this page is shown by name. */
export function describeEvent(e) {
  const describe = Object.hasOwn(DESCRIBE, e.type) ? DESCRIBE[e.type] : undefined;
  return describe ? describe(e.data ?? {}) : { text: e.type, tone: 'info' };
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
        if (e.type === 'step' && e.data?.state === 'started') {
          label = stepLabel(e.data?.step, 'started');
          since = e.ts;
          detail = '';
        }
        if (e.type === 'phase' && PHASE_LABELS[e.data?.phase] && !e.data?.plan) {
          label = PHASE_LABELS[e.data.phase];
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
