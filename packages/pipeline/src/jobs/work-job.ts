import { FINAL_STATUSES, type Logger, type Operation } from '@pullwright/core';
import type { JobDefinition } from '../frame/job-frame.ts';
import { StopOperation } from '../frame/stop-operation.ts';
import { tokenHolder } from '../operation-accounting.ts';
import { OperationFileLocks } from '../operation-file-locks.ts';
import type { PipelineDeps } from '../pipeline-deps.ts';
import type { WorkContext } from '../steps/work-context.ts';

/** The frame's context for a job that changes code, before prepare. */
export function workContext(
  deps: PipelineDeps,
  op: Operation,
  log: Logger,
  kind: WorkContext['kind'],
  worktreeId: string,
): WorkContext {
  // A holder whose operation no longer runs (its worker was killed) cannot keep a file from us.
  const isRunning = async (holder: string) => (await deps.store.find(holder))?.status === 'running';
  return {
    deps,
    kind,
    opId: op.id,
    op,
    log,
    locks: new OperationFileLocks(deps.fileLocks, op.repo, op.id, log, isRunning),
    worktreeId,
    tokenHolder: tokenHolder(op.id, kind),
    confirmationWaitMs: 0,
  };
}

/** Between steps of a job that changes code: an operation ended elsewhere, or a cancel request. */
export async function workInterrupted(ctx: WorkContext): Promise<StopOperation | undefined> {
  const cur = await ctx.deps.store.get(ctx.opId);
  if (FINAL_STATUSES.has(cur.status)) return new StopOperation('cancelled', `operation is ${cur.status}`);
  if (cur.status === 'running' && cur.cancelRequested) return new StopOperation('cancelled', 'cancelled on request');
  return undefined;
}

/** Release for a job that changes code: file locks, the job's git token, and its worktree once done. */
export const releaseWork: JobDefinition<WorkContext>['release'] = async (ctx, finished) => {
  const { deps, log } = ctx;
  await ctx.locks.release().catch((err) => log.warn({ err }, 'file lock release failed'));
  await deps.forge.revokeToken(ctx.op.repo, ctx.tokenHolder).catch((err) => log.warn({ err }, 'token revoke failed'));
  // Kept when the job will run again: its work (and its conversation) resumes from there.
  if (finished && ctx.kind === 'run')
    await deps.conversations
      .for(ctx.opId, 'run')
      .clear()
      .catch((err) => log.warn({ err }, 'conversation cleanup failed'));
  if (finished)
    await deps.workspace
      .remove(ctx.worktreeId, ctx.op.repo)
      .catch((err) => log.warn({ err }, 'worktree cleanup failed'));
};
