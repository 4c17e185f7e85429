import { blockingFailures, firstFailingTrace } from '@pullwright/agent';
import { FINAL_STATUSES, type Logger, type Operation, Review } from '@pullwright/core';
import { KEPT_DIFF_ARTIFACT } from '@pullwright/queue';
import { tokenHolder } from '../budget/operation-accounting.ts';
import type { JobDefinition } from '../frame/job-frame.ts';
import type { PipelineDeps } from '../frame/pipeline-deps.ts';
import { StopOperation } from '../frame/stop-operation.ts';
import { OperationFileLocks } from '../gates/operation-file-locks.ts';
import { failureReport, type ReportIssue } from '../tracking/failure-report.ts';
import { baselineAtEnd, type WorkContext } from '../work/work-context.ts';

/** The frame's context for a job that changes code, before prepare. */
export function workContext(
  deps: PipelineDeps,
  op: Operation,
  log: Logger,
  kind: WorkContext['kind'],
  worktreeId: string,
  conversation: string,
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
    conversation,
    tokenHolder: tokenHolder(op.id, kind),
    confirmationWaitMs: 0,
  };
}

/** Between steps of a job that changes code: an operation ended elsewhere, or a cancel request. */
export async function workInterrupted(ctx: WorkContext): Promise<StopOperation | undefined> {
  const cur = await ctx.deps.store.get(ctx.opId);
  if (FINAL_STATUSES.has(cur.status))
    return new StopOperation({ code: 'requested', detail: `operation is ${cur.status}` });
  if (cur.status === 'running' && cur.cancelRequested) return new StopOperation({ code: 'requested' });
  return undefined;
}

/** Release for a job that changes code: file locks, the job's git token, and its worktree once done. */
export const releaseWork: JobDefinition<WorkContext>['release'] = async (ctx, finished) => {
  const { deps, log } = ctx;
  // A baseline still running beside the model ends with the job (and gives back its checkout).
  await baselineAtEnd(ctx);
  // A worktree still checking out beside the model is finished before it is removed or pooled.
  await ctx.work?.checkedOut.catch(() => undefined);
  await ctx.work?.dependencies.release().catch((err) => log.warn({ err }, 'dependency layer cleanup failed'));
  await ctx.locks.release().catch((err) => log.warn({ err }, 'file lock release failed'));
  await deps.forge.revokeToken(ctx.op.repo, ctx.tokenHolder).catch((err) => log.warn({ err }, 'token revoke failed'));
  // Kept when the job will run again: its work (and its conversation) resumes from there.
  if (finished)
    await deps.conversations
      .for(ctx.opId, ctx.conversation)
      .clear()
      .catch((err) => log.warn({ err }, 'conversation cleanup failed'));
  if (finished)
    await deps.workspace
      .remove(ctx.worktreeId, ctx.op.repo)
      .catch((err) => log.warn({ err }, 'worktree cleanup failed'));
};

/**
 * The failure report of a job that changes code (see `failureReport`): the checks still
 * failing in the worktree (with their first trace), the reviewer's must-fix items, what the
 * last fixer report left, and the partial change — whose diff is kept as an artifact, since
 * a failed job pushes nothing. Read before release removes the worktree.
 */
export async function failureReportOf(
  ctx: WorkContext,
  stop: StopOperation,
  title: string,
): Promise<string | undefined> {
  // The operation must still end with its status and reason when the report cannot be made.
  return buildReport(ctx, stop, title).catch((err: unknown) => {
    ctx.log.warn({ err: (err as Error).message }, 'failure report could not be made');
    return undefined;
  });
}

async function buildReport(ctx: WorkContext, stop: StopOperation, title: string): Promise<string> {
  const { deps, op } = ctx;
  const redact = (t: string) => deps.redactor.redact(t);
  const issues: ReportIssue[] = [];
  let files: string[] = [];
  let keptDiff: { diff: string; artifact: string } | undefined;
  if (ctx.work) {
    const { ws, startSha, record } = ctx.work;
    const type = ctx.kind === 'revise' ? 'revise' : op.type;
    for (const run of blockingFailures(type, record.latestRuns(), await baselineAtEnd(ctx))) {
      const how = run.timedOut ? 'timed out' : `exited with ${run.exitCode ?? 'no code'}`;
      const tests = run.failingTests.length ? `; failing: ${run.failingTests.slice(0, 5).join(', ')}` : '';
      issues.push({ text: `check \`${run.name}\` ${how}${tests}`, trace: redact(firstFailingTrace(run.output)) });
    }
    files = await deps.workspace.changedFiles(ws.dir, startSha).catch(() => []);
    const diff = files.length > 0 ? redact(await deps.workspace.diff(ws.dir, startSha).catch(() => '')) : '';
    if (diff.trim()) {
      await deps.artifacts.put(ctx.opId, KEPT_DIFF_ARTIFACT, diff);
      keptDiff = { diff, artifact: KEPT_DIFF_ARTIFACT };
    }
  }
  const review = Review.safeParse(op.review);
  if (review.success && review.data.decision === 'request_changes')
    for (const item of review.data.must_fix) issues.push(redact(`reviewer: must fix: ${item}`));
  const lastFix = ctx.fixReports?.at(-1);
  if (lastFix?.report?.remaining_errors.length)
    issues.push(redact(`fixer (round ${lastFix.round}) left: ${lastFix.report.remaining_errors.join('; ')}`));
  else if (lastFix && !lastFix.valid)
    issues.push(redact(`fixer (round ${lastFix.round}) report was not valid JSON: ${lastFix.problem}`));
  // Redacted once more as a whole: the request text and the reason are in it too.
  return redact(
    failureReport({
      title,
      request: op.description.split('\n')[0]!,
      outcome: stop.outcome,
      issues,
      files,
      keptDiff,
    }),
  );
}
