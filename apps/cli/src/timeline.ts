import { type Operation, type OperationEvent, OperationEventType, type OperationStatus } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';

export async function waitForStatus(
  runtime: Pick<Runtime, 'store'>,
  id: string,
  statuses: OperationStatus[],
  timeoutMs: number,
): Promise<Operation> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const op = await runtime.store.get(id);
    if (statuses.includes(op.status)) return op;
    if (Date.now() > deadline) throw new Error(`operation ${id} is still ${op.status} after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Line = (data: Record<string, unknown>, type: OperationEventType) => string;

/** The type says what happened; `pullwright` users open the dashboard for the details. */
const byName: Line = (_data, type) => type;

/** One line per event type: the map names every type, so a new one does not compile until it is here. */
const LINES: { [T in OperationEventType]: Line } = {
  created: (data) => `created (${String(data.type)} on ${String(data.repo)})`,
  status: (data) => `→ ${String(data.to)}${data.reason ? `: ${String(data.reason).split('\n')[0]}` : ''}`,
  // The baseline step reports its checks' results once, beside its started/finished events.
  step: (data) =>
    data.step === 'baseline' && data.checks !== undefined
      ? `step baseline${data.cached ? ' (cached)' : ''}: ${JSON.stringify(data.checks)}`
      : `step ${String(data.step)}${data.state ? ` ${String(data.state)}` : ''}${data.branch ? ` ${String(data.branch)}` : ''}`,
  phase: (data) => `phase ${String(data.phase)}${data.round ? ` (round ${String(data.round)})` : ''}`,
  evidence: (data) =>
    `evidence: ${data.reproduced ? `red → green on ${(data.green as string[]).length} test(s)` : `not reproduced (${String(data.note)})`}`,
  checkpoint: (data) => `checkpoint ${String(data.step)}`,
  plan_step: (data) => `task ${String(data.taskId)} ${String(data.state)}`,
  fix_report: (data) => `fixer round ${String(data.round)}: ${data.valid ? 'report' : 'report not valid'}`,
  ci_failure: (data) => `CI red on ${String(data.headSha).slice(0, 7)}: ${String(data.state)}`,
  commit_signature: (data) =>
    data.state === 'forge'
      ? 'commits signed by the forge'
      : `commits pushed unsigned${data.reason ? `: ${String(data.reason)}` : ''}`,
  sandbox: (data) =>
    data.sandboxed ? `sandbox ${String(data.runner)}` : 'WARNING: checks run without a sandbox (SANDBOX=none)',
  instructions: (data) =>
    `instructions: ${(data.files as { path: string }[]).map((f) => f.path).join(', ') || 'none read'}`,
  mcp: (data) =>
    `mcp ${String(data.server)} ${String(data.state)}${data.reason ? `: ${String(data.reason)}` : ''}${Array.isArray(data.tools) ? ` (${data.tools.join(', ')})` : ''}`,
  model: (data) =>
    `${String(data.role ?? 'model')} turn ${String(data.turn)}${Array.isArray(data.toolCalls) && data.toolCalls.length ? ` → ${data.toolCalls.join(', ')}` : ''}`,
  tool: (data) => `  ${String(data.name)}: ${String(data.summary)}`,
  check: (data) => `  check ${String(data.name)}: ${data.passed ? 'pass' : 'FAIL'} (${String(data.durationMs)} ms)`,
  revision: (data) => `revision ${String(data.state)}${data.headSha ? ` at ${String(data.headSha).slice(0, 12)}` : ''}`,
  deploy: (data) => `deploy ${String(data.step)}${data.state ? ` ${String(data.state)}` : ''}`,
  egress_refused: (data) =>
    `egress refused in ${String(data.step)}: ${String(data.host)}:${String(data.port)} (${String(data.reason)})`,
  stuck: (data) => `stuck in ${String(data.step)} for ${Math.round(Number(data.idleMs) / 1000)} s`,
  message: byName,
  waiting: byName,
  locks_acquired: byName,
  overlap: byName,
  risk: byName,
  approval: byName,
  approval_pending: byName,
  auto_approval: byName,
  cancel_requested: byName,
  usage: byName,
  plan_confirmation: byName,
  budget_estimate: (data) =>
    `estimate $${Number(data.estimateUsd).toFixed(2)} (${String(data.basis)}) of a $${Number(data.limitUsd).toFixed(2)} budget`,
  budget_pause: (data) =>
    `budget ${String(data.state)}${data.by ? ` by ${String(data.by)}` : ''}${typeof data.amountUsd === 'number' ? ` +$${data.amountUsd.toFixed(2)}` : ''}`,
  base_merged: byName,
  head_moved: byName,
  retry_of: byName,
  retried: byName,
  slack_session: byName,
  slack_thread: byName,
  unstuck: byName,
};

/** A stored type this build does not know is printed by name. */
function describe(type: OperationEvent['type'], data: Record<string, unknown>): string {
  const known = OperationEventType.safeParse(type);
  return known.success ? LINES[known.data](data, known.data) : type;
}

/** The operation's event stream as readable lines: what happened, in order. */
export async function printTimeline(
  runtime: Pick<Runtime, 'events'>,
  id: string,
  out: NodeJS.WritableStream,
): Promise<void> {
  const events = await runtime.events.list(id);
  const start = Date.parse(events[0]?.ts ?? new Date().toISOString());
  for (const e of events) {
    if (e.type === 'usage') continue;
    const t = ((Date.parse(e.ts) - start) / 1000).toFixed(2).padStart(7);
    out.write(`${t}s  ${describe(e.type, e.data)}\n`);
  }
}
