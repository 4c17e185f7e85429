import { describeEvent, type Operation, type OperationStatus } from '@pullwright/core';
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

/** The operation's event stream as readable lines (core `describeEvent`): what happened, in order. */
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
    out.write(`${t}s  ${describeEvent(e).text}\n`);
  }
}
