import { type Operation, type OperationEvent, type OperationStatus, unknownEventType } from '@pullwright/core';
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

/** One line per event; every type is named here (a new one does not compile until it is). */
function describe(type: OperationEvent['type'], data: Record<string, unknown>): string {
  switch (type) {
    case 'created':
      return `created (${String(data.type)} on ${String(data.repo)})`;
    case 'status':
      return `→ ${String(data.to)}${data.reason ? `: ${String(data.reason).split('\n')[0]}` : ''}`;
    case 'step':
      if (data.step === 'baseline')
        return `step baseline${data.cached ? ' (cached)' : ''}: ${JSON.stringify(data.checks)}`;
      return `step ${String(data.step)}${data.state ? ` ${String(data.state)}` : ''}${data.branch ? ` ${String(data.branch)}` : ''}`;
    case 'phase':
      return `phase ${String(data.phase)}${data.round ? ` (round ${String(data.round)})` : ''}`;
    case 'evidence':
      return `evidence: ${data.reproduced ? `red → green on ${(data.green as string[]).length} test(s)` : `not reproduced (${String(data.note)})`}`;
    case 'checkpoint':
      return `checkpoint ${String(data.step)}`;
    case 'model':
      return `${String(data.role ?? 'model')} turn ${String(data.turn)}${Array.isArray(data.toolCalls) && data.toolCalls.length ? ` → ${data.toolCalls.join(', ')}` : ''}`;
    case 'tool':
      return `  ${String(data.name)}: ${String(data.summary)}`;
    case 'check':
      return `  check ${String(data.name)}: ${data.passed ? 'pass' : 'FAIL'} (${String(data.durationMs)} ms)`;
    case 'revision':
      return `revision ${String(data.state)}${data.headSha ? ` at ${String(data.headSha).slice(0, 12)}` : ''}`;
    case 'deploy':
      return `deploy ${String(data.step)}${data.state ? ` ${String(data.state)}` : ''}`;
    case 'stuck':
      return `stuck in ${String(data.step)} for ${Math.round(Number(data.idleMs) / 1000)} s`;
    // Shown by name: the type says what happened, the dashboard shows the details.
    case 'message':
    case 'waiting':
    case 'locks_acquired':
    case 'overlap':
    case 'risk':
    case 'approval':
    case 'approval_pending':
    case 'auto_approval':
    case 'cancel_requested':
    case 'usage':
    case 'plan_confirmation':
    case 'base_merged':
    case 'head_moved':
    case 'retry_of':
    case 'retried':
    case 'slack_session':
    case 'slack_thread':
    case 'unstuck':
      return type;
    default:
      return unknownEventType(type);
  }
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
