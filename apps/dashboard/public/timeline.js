// Reading the operation's event stream: one line per event, and what is happening now.
import { STATUS_LABELS } from './dom.js';

const STEP_LABELS = {
  claim: 'Picked up by a worker',
  prepare: 'Preparing the working copy',
  install: 'Installing dependencies',
  baseline: 'Running the checks on the base branch',
  agent: 'Agent working',
  verify: 'Running the checks',
  secret_scan: 'Scanning the diff for secrets',
  push: 'Pushing the branch',
  release: 'Releasing the working copy',
  merge: 'Merging',
};

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

/** { text, tone, link? } for one event; tone colours the timeline dot. */
export function describeEvent(e) {
  const d = e.data ?? {};
  switch (e.type) {
    case 'created':
      return { text: `Created by ${d.requester?.user ?? 'someone'} via ${d.requester?.source ?? '?'}`, tone: 'info' };
    case 'status': {
      const to = STATUS_LABELS[d.to] ?? d.to;
      const by = d.by ? ` by ${d.by}` : '';
      const why = d.reason ? `: ${firstLine(d.reason)}` : '';
      const tone = ['failed', 'rejected', 'cancelled'].includes(d.to) ? 'bad' : d.to === 'merged' ? 'good' : 'status';
      return { text: `${to}${by}${why}`, tone };
    }
    case 'step': {
      const label = STEP_LABELS[d.step] ?? d.step;
      if (d.step === 'prepare') return { text: `Branch ${d.branch}${d.resumed ? ' (resumed)' : ''}`, tone: 'step' };
      if (d.step === 'push') return { text: `Pushed ${String(d.headSha ?? '').slice(0, 7)}`, tone: 'step' };
      if (d.step === 'agent' && d.state === 'finished') {
        const how = d.outcome ? ` (${d.outcome}${d.repairs ? `, ${d.repairs} repair rounds` : ''})` : '';
        return { text: `Agent finished${how}`, tone: 'step' };
      }
      if (d.step === 'baseline' && d.checks && typeof d.checks === 'object') {
        const failing = Object.entries(d.checks)
          .filter(([, passed]) => !passed)
          .map(([name]) => name);
        return {
          text: `Base branch: ${failing.length ? `${failing.join(', ')} failing` : 'checks pass'}`,
          tone: 'step',
        };
      }
      if (d.step === 'secret_scan') {
        return d.findings
          ? { text: `Secret scan: ${d.findings} finding(s)`, tone: 'bad' }
          : { text: 'Secret scan: clean', tone: 'good' };
      }
      if (d.step === 'verify' && d.state === 'finished')
        return { text: d.passed ? 'All checks passed' : 'Checks failed', tone: d.passed ? 'good' : 'bad' };
      return { text: d.state === 'started' ? label : `${label}${d.state ? ` (${d.state})` : ''}`, tone: 'step' };
    }
    case 'phase':
      if (d.phase === 'plan' && d.plan)
        return {
          text: `Plan ${d.plan.plan_id ?? ''} ready: ${(d.plan.steps ?? []).map((st) => st.id).join(', ') || 'no steps'}`,
          tone: 'status',
        };
      if (d.phase === 'repair')
        return {
          text: `Repair round ${d.round}${d.taskId ? ` on ${d.taskId}` : ''}: ${(d.failing ?? []).join(', ')}`,
          tone: 'bad',
        };
      return { text: PHASE_LABELS[d.phase] ?? d.phase, tone: 'status' };
    case 'model': {
      const tools = Array.isArray(d.toolCalls) && d.toolCalls.length ? ` → ${d.toolCalls.join(', ')}` : '';
      return {
        text: `${roleOf(d)}turn ${d.turn}${d.text ? `: ${clip(firstLine(d.text))}` : ''}${tools}`,
        tone: 'model',
      };
    }
    case 'tool':
      return { text: `${d.name}: ${clip(firstLine(d.summary))}`, tone: d.isError ? 'bad' : 'tool' };
    case 'evidence':
      return {
        text: d.reproduced
          ? `Reproduced: ${d.red?.length ?? 0} failing before, passing after`
          : 'Not reproduced by a failing test',
        tone: d.reproduced ? 'good' : 'info',
      };
    case 'checkpoint':
      return { text: `Checkpoint ${d.step}`, tone: 'quiet' };
    case 'plan_step': {
      const states = { started: 'started', verified: 'verified: its checks pass', failed: 'still red', done: 'done' };
      const tone = d.state === 'failed' ? 'bad' : d.state === 'verified' ? 'good' : 'step';
      return { text: `${d.taskId} ${states[d.state] ?? d.state}: ${clip(d.title ?? '')}`, tone };
    }
    case 'fix_report': {
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
    }
    case 'check':
      return { text: `Check ${d.name} ${d.passed ? 'passed' : 'failed'}`, tone: d.passed ? 'good' : 'bad' };
    case 'message':
      return { text: `${d.from} (${d.source}): ${firstLine(d.text)}`, tone: 'info' };
    case 'cancel_requested':
      return { text: `Cancel requested by ${d.by}`, tone: 'bad' };
    case 'retried':
      return { text: `Retried by ${d.by} as ${d.retryId}`, tone: 'info', link: `#/op/${d.retryId}` };
    case 'retry_of':
      return { text: `Retry of ${d.opId} by ${d.by}`, tone: 'info', link: `#/op/${d.opId}` };
    case 'usage':
      return { text: `Model call: ${d.inputTokens ?? 0} in, ${d.outputTokens ?? 0} out`, tone: 'quiet' };
    case 'approval':
      return { text: `Approval by ${d.by} (${d.source})`, tone: 'good' };
    case 'risk':
      return { text: `Risk: ${d.level}`, tone: d.level === 'high' ? 'bad' : 'info' };
    case 'waiting':
      return {
        text:
          d.lock === 'merge'
            ? `Waiting for the merge lock (${d.holder})`
            : `Waiting for ${(d.files ?? []).join(', ')} (held by ${d.holder})`,
        tone: 'info',
      };
    case 'locks_acquired':
      return { text: `Locked ${(d.files ?? []).join(', ') || 'its files'}`, tone: 'quiet' };
    case 'overlap':
      return { text: `Overlaps open branches on ${(d.files ?? []).join(', ')}`, tone: 'bad' };
    case 'base_merged':
      return { text: 'Base branch merged into the branch; checks re-run', tone: 'info' };
    case 'plan_confirmation':
      return { text: 'Plan waiting for Start', tone: 'info' };
    case 'auto_approval':
      return { text: d.approved ? 'Auto-approved by policy' : 'Not auto-approved', tone: 'quiet' };
    case 'deploy':
      return { text: `Deploy: ${d.step}`, tone: d.step === 'failed' ? 'bad' : 'info' };
    case 'sandbox':
      return d.sandboxed
        ? { text: `Checks run in the ${d.runner} sandbox`, tone: 'quiet' }
        : { text: 'Checks run WITHOUT a sandbox (SANDBOX=none)', tone: 'bad' };
    default:
      return { text: e.type, tone: 'info' };
  }
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
        if (e.type === 'step' && (e.data?.state === 'started' || !e.data?.state)) {
          label = STEP_LABELS[e.data?.step] ?? e.data?.step;
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
