import type { WorkContext } from './work-context.ts';

/** Between model calls: a reason to stop (a cancel request, an operation that ended elsewhere). */
export async function stopReason(ctx: WorkContext): Promise<string | undefined> {
  const cur = await ctx.deps.store.get(ctx.opId);
  if (cur.status !== 'running') return `operation is ${cur.status}`;
  return cur.cancelRequested ? 'cancelled on request' : undefined;
}
