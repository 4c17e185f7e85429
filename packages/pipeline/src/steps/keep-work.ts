import { KEPT_DIFF_ARTIFACT } from '@pullwright/queue';
import { type WorkContext, workOf } from './work-context.ts';

/** Saves the unpushed diff as an artifact of the operation, so work cut short by a budget is not lost. */
export async function keepWork(ctx: WorkContext): Promise<string | undefined> {
  const { deps } = ctx;
  const { ws, baseSha } = workOf(ctx);
  const diff = await deps.workspace.diff(ws.dir, baseSha);
  if (!diff.trim()) return undefined;
  await deps.artifacts.put(ctx.opId, KEPT_DIFF_ARTIFACT, deps.redactor.redact(diff));
  return `the operation's ${KEPT_DIFF_ARTIFACT} artifact`;
}
