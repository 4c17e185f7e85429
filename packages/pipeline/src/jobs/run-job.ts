import { FINAL_STATUSES, type Operation } from '@pullwright/core';
import { redGreenEvidence } from '../checks/red-green.ts';
import { RepoChecks } from '../checks/repo-checks.ts';
import type { JobDefinition, Step } from '../frame/job-frame.ts';
import { runJob } from '../frame/job-frame.ts';
import type { PipelineDeps } from '../frame/pipeline-deps.ts';
import { withForgeRetries } from '../gates/forge-retries.ts';
import { publishChange, pullRequestBodyFor, recordChange } from '../gates/publish-gate.ts';
import { baselineStep } from '../steps/baseline-step.ts';
import { installStep } from '../steps/install-step.ts';
import { prepareStep } from '../steps/prepare-step.ts';
import { solveStep } from '../steps/solve-step.ts';
import { verifyStep } from '../steps/verify-step.ts';
import { openedNote, pullRequestBody } from '../tracking/pull-request-body.ts';
import { updateTrackingComment } from '../tracking/tracking-comment.ts';
import { baselineOf, type WorkContext, workOf } from '../work/work-context.ts';
import { failureReportOf, releaseWork, workContext, workInterrupted } from './work-job.ts';

/** /debug: the tests that fail without the fix and pass with it. */
const evidenceStep: Step<WorkContext> = {
  name: 'evidence',
  async run(ctx) {
    if (ctx.op.type !== 'debug') return { skipped: 'only /debug records red → green evidence' };
    if (ctx.op.evidence) return { resumed: true };
    const { deps } = ctx;
    const { ws, commands, baseSha } = workOf(ctx);
    const evidence = await redGreenEvidence({
      baseline: (await baselineOf(ctx)).test,
      final: ctx.finalChecks?.find((c) => c.name === 'test'),
      changedFiles: ctx.op.filesChanged,
      summary: ctx.op.summary ?? '',
      worktree: ws.dir,
      runTestsOnBase: (copy) =>
        deps.workspace.withTemporaryWorktree(ctx.op.repo, baseSha, async (dir) => {
          await copy(dir);
          return new RepoChecks(dir, commands, deps.runner, {
            cache: { results: deps.checkResults, repo: ctx.op.repo },
          }).run('test');
        }),
    });
    ctx.op = await deps.store.patch(ctx.opId, { evidence }, { type: 'evidence', data: { ...evidence } });
    return { reproduced: evidence.reproduced };
  },
};

/** publish: through the publish gate, then the PR (opened once, its body signed for this head). */
const publishStep: Step<WorkContext> = {
  name: 'publish',
  async run(ctx) {
    const { deps } = ctx;
    const work = workOf(ctx);
    const { branch, ws, baseSha } = work;
    const op = ctx.op;
    const title = `${op.type}: ${op.description.split('\n')[0]!.slice(0, 72)}`;
    const headSha = await publishChange(ctx, work, {
      message: title,
      trailers: { 'Pullwright-Operation': op.id },
      texts: [
        { channel: 'pr-title', text: title },
        { channel: 'pr-body', text: pullRequestBody(op, op.summary ?? '') },
      ],
    });
    await deps.events.append(ctx.opId, 'checkpoint', { step: 'pushed' });
    const body = pullRequestBodyFor(deps, ctx.op, headSha);
    const pr = await withForgeRetries(ctx, work.budget, 'opening the pull request', async () => {
      const pr = await deps.forge.openPullRequest({ repo: op.repo, head: branch, base: op.baseBranch, title, body });
      // A PR a crashed attempt opened for an older head gets the body of this one.
      if (pr.body !== body) await deps.forge.updatePullRequestBody(op.repo, pr.number, body);
      return pr;
    });
    await deps.branches.register(op.repo, branch, { opId: op.id, files: ctx.op.filesChanged, prNumber: pr.number });
    const overlaps = await liveOverlaps(deps, op.repo, ctx.op.filesChanged, branch);
    if (overlaps.length > 0) {
      const files = [...new Set(overlaps.flatMap((o) => o.files))];
      ctx.op = await deps.store.patch(
        ctx.opId,
        { overlaps },
        { type: 'overlap', data: { branches: overlaps.map((o) => o.branch), files } },
      );
    }
    ctx.op = await deps.store.transition(
      ctx.opId,
      'awaiting_approval',
      {
        pullRequest: { number: pr.number, url: pr.url, headSha: pr.headSha },
        headSha: pr.headSha,
      },
      { pullRequest: pr.number, url: pr.url, headSha: pr.headSha },
    );
    await updateTrackingComment(deps, ctx.op, openedNote(ctx.op), ctx.log);
    // Risk of the final diff, and an approval by policy where the rules allow one.
    ctx.op = await deps.approvalPolicy.afterPullRequest(ctx.opId, await deps.workspace.diff(ws.dir, baseSha));
    return { pullRequest: pr.number, headSha: pr.headSha };
  },
};

/**
 * record: an evaluation attempt's end (see @pullwright/eval). The change passes the same gate
 * as a push and is kept for grading; the operation ends `evaluated`. No PR, no push: the
 * attempt's worktree holds its base alone and has no remote.
 */
const recordStep: Step<WorkContext> = {
  name: 'record',
  async run(ctx) {
    const op = ctx.op;
    const headSha = await recordChange(ctx, workOf(ctx), {
      message: `${op.type}: ${op.description.split('\n')[0]!.slice(0, 72)}`,
      trailers: { 'Pullwright-Operation': op.id },
    });
    ctx.op = await ctx.deps.store.end(ctx.opId, { code: 'evaluated' }, {}, { headSha });
    return { headSha, files: ctx.op.filesChanged.length };
  },
};

/** Other open branches touching the same files; entries of finished operations are dropped on the way. */
async function liveOverlaps(deps: PipelineDeps, repo: string, files: string[], branch: string) {
  const live = [];
  for (const o of await deps.branches.overlaps(repo, files, branch)) {
    const other = await deps.store.find(o.opId);
    if (!other || FINAL_STATUSES.has(other.status)) await deps.branches.drop(repo, o.branch);
    else live.push(o);
  }
  return live;
}

/**
 * The `run` job: claim → prepare → install → baseline → agent → verify → evidence → publish.
 * Every step behind the same gates as a revision's; whatever happens, the operation ends in
 * a status with a reason.
 */
const RUN_JOB: JobDefinition<WorkContext> = {
  kind: 'run',
  async claim(deps, op) {
    if (op.status === 'queued') return deps.store.transition(op.id, 'running', {}, { step: 'claim' });
    return op.status === 'running' ? op : undefined;
  },
  context: (deps, op, log) => workContext(deps, op, log, 'run', op.id, 'run'),
  steps: [prepareStep('base'), installStep, baselineStep, solveStep, verifyStep, evidenceStep, publishStep],
  interrupted: workInterrupted,
  async stop(ctx, stop) {
    const { deps } = ctx;
    if (FINAL_STATUSES.has(ctx.op.status)) return ctx.op;
    if (stop.status === 'cancelled') return deps.store.end(ctx.opId, stop.outcome);
    const failureReport = await failureReportOf(ctx, stop, `${ctx.op.type} failed`);
    const op = await deps.store.end(ctx.opId, stop.outcome, failureReport ? { failureReport } : {});
    if (failureReport) await updateTrackingComment(deps, op, failureReport, ctx.log);
    return op;
  },
  release: releaseWork,
};

/**
 * The `run` job of an evaluation attempt (the operation's `eval` field): the same claim, steps,
 * gates, budget and ending as a run, but its last step records the change instead of
 * publishing it, and its worktree is built from the base commit alone (see the prepare step).
 */
const EVAL_RUN_JOB: JobDefinition<WorkContext> = {
  ...RUN_JOB,
  steps: [prepareStep('base'), installStep, baselineStep, solveStep, verifyStep, recordStep],
};

/** A `run` job: the operation's own field decides which definition runs, never the job's payload. */
export async function runOperation(opId: string, deps: PipelineDeps): Promise<Operation> {
  const op = await deps.store.get(opId);
  return runJob(op.eval ? EVAL_RUN_JOB : RUN_JOB, opId, deps);
}
