import { KEPT_DIFF_ARTIFACT } from '@pullwright/queue';
import type { PreparedWork, WorkContext } from './work-context.ts';

/** Saves the unpushed diff as an artifact of the operation, so work cut short by a budget is not lost. */
export async function keepWork(
  ctx: WorkContext,
  work: Pick<PreparedWork, 'ws' | 'startSha'>,
): Promise<string | undefined> {
  const { deps } = ctx;
  // From where this job started: a revision keeps its own round's work, not the whole PR again.
  const { ws, startSha } = work;
  const diff = await deps.workspace.diff(ws.dir, startSha);
  if (!diff.trim()) return undefined;
  await deps.artifacts.put(ctx.opId, KEPT_DIFF_ARTIFACT, deps.redactor.redact(diff));
  return `the operation's ${KEPT_DIFF_ARTIFACT} artifact`;
}
