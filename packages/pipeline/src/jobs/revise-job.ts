import { type Operation, PullwrightError, recordRound, settleRound, transition } from '@pullwright/core';
import {
  type JobData,
  type OperationStore,
  type ReviewFeedback,
  ReviseJob,
  type ReviseJobPayload,
} from '@pullwright/queue';
import { gitClient } from '@pullwright/workspace';
import { type JobDefinition, runJob, type Step } from '../frame/job-frame.ts';
import type { PipelineDeps } from '../frame/pipeline-deps.ts';
import { StopOperation } from '../frame/stop-operation.ts';
import { withForgeRetries } from '../gates/forge-retries.ts';
import { publishChange, pullRequestBodyFor } from '../gates/publish-gate.ts';
import {
  answeredEntries,
  ledgerEntry,
  parseReplies,
  type ReplyOutcome,
  type RevisionReply,
  replyText,
  revisionTask,
} from '../revision/revision-replies.ts';
import { baselineStep } from '../steps/baseline-step.ts';
import { installStep } from '../steps/install-step.ts';
import { prepareStep } from '../steps/prepare-step.ts';
import { solveWork, stopForOutcome } from '../steps/solve-step.ts';
import { verifyStep } from '../steps/verify-step.ts';
import { pullRequestBody } from '../tracking/pull-request-body.ts';
import { quote, updateTrackingComment } from '../tracking/tracking-comment.ts';
import { baselineOf, type WorkContext, workOf } from '../work/work-context.ts';
import { failureReportOf, releaseWork, workContext, workInterrupted } from './work-job.ts';

type DecidedReply = { id: number; kind: string; outcome: ReplyOutcome; note: string };

interface ReviseContext extends WorkContext {
  readonly job: JobData<'revise'>;
  feedback: ReviewFeedback[];
  replies: RevisionReply[];
  /** Set when an earlier attempt already pushed this revision: finish it, never revise twice. */
  pushed?: { replies?: DecidedReply[] };
  headSha?: string;
}

/**
 * approved → awaiting_approval, the approval dropped: it named a head sha that is no
 * longer the PR's head (a push after approval), or the reviewers asked for changes.
 */
export async function invalidateApproval(
  store: OperationStore,
  id: string,
  reason: string,
  headSha?: string,
): Promise<Operation> {
  return store.update(
    id,
    (op) => {
      const next = transition(op, 'awaiting_approval', {
        ...(headSha && op.pullRequest ? { headSha, pullRequest: { ...op.pullRequest, headSha } } : {}),
      });
      delete next.approval;
      return next;
    },
    {
      type: 'status',
      data: { to: 'awaiting_approval', reason, approvalInvalidated: true, ...(headSha ? { headSha } : {}) },
    },
  );
}

/** The event recording that this request's revision was pushed (and its replies decided). */
async function revisionPushed(deps: PipelineDeps, id: string, requestId: string) {
  return (await deps.events.list(id))
    .filter((e) => e.type === 'revision' && e.data.requestId === requestId && e.data.state === 'pushed')
    .at(-1);
}

/** The revision a running operation is working on: the request id on its last → running transition. */
async function currentRevision(deps: PipelineDeps, id: string): Promise<string | undefined> {
  const last = (await deps.events.list(id)).filter((e) => e.type === 'status' && e.data.to === 'running').at(-1);
  return typeof last?.data.revision === 'string' ? last.data.revision : undefined;
}

/** Every comment the review holds, each once, without empty ones. */
const feedbackStep: Step<ReviseContext> = {
  name: 'feedback',
  async run(ctx) {
    const { deps, job } = ctx;
    const pr = ctx.op.pullRequest;
    if (!pr || !ctx.op.branch)
      throw new StopOperation({ code: 'not_found', detail: 'nothing to revise: the operation has no pull request' });
    const items = [...job.feedback];
    if (job.reviewId !== undefined) {
      for (const c of await deps.forge.listReviewComments(ctx.op.repo, pr.number, job.reviewId)) {
        items.push({
          id: c.id,
          kind: 'review_comment',
          user: c.user,
          body: c.body,
          ...(c.path ? { path: c.path } : {}),
          ...(c.line ? { line: c.line } : {}),
        });
      }
    }
    const seen = new Set<string>();
    ctx.feedback = items.filter((f) => {
      const key = `${f.kind}:${f.id}`;
      if (seen.has(key) || !f.body.trim()) return false;
      seen.add(key);
      return true;
    });
    if (ctx.feedback.length === 0)
      throw new StopOperation({ code: 'no_change', detail: 'the review has no comments to act on' });
    // The ledger round: who asked what, against the head they saw. A retried job records it again, once.
    const known = ctx.op.ledger?.find((r) => r.requestId === job.requestId);
    ctx.op = await deps.store.update(
      ctx.opId,
      (cur) =>
        recordRound(cur, {
          requestId: job.requestId,
          at: known?.at ?? new Date().toISOString(),
          ...((known?.fromSha ?? pr.headSha) ? { fromSha: known?.fromSha ?? pr.headSha } : {}),
          state: 'working',
          entries: ctx.feedback.map(ledgerEntry),
        }),
      { type: 'revision', data: { state: 'requested', requestId: job.requestId, requests: ctx.feedback.length } },
    );
    await updateTrackingComment(deps, ctx.op, `Revising: ${ctx.feedback.length} request(s) to address.`, ctx.log);
    return { comments: ctx.feedback.length, revision: job.requestId };
  },
};

/**
 * A retried job must not revise twice: the pushed event (with the replies it decided), or the
 * trailer on the branch head when the crash came between push and event, says it is done.
 */
const resumeStep: Step<ReviseContext> = {
  name: 'resume',
  async run(ctx) {
    const { ws, startSha } = workOf(ctx);
    const event = await revisionPushed(ctx.deps, ctx.opId, ctx.job.requestId);
    if (event) ctx.pushed = { replies: event.data.replies as DecidedReply[] };
    else {
      const message = await gitClient(ws.dir).raw(['log', '-1', '--format=%B', startSha]);
      if (message.includes(`Pullwright-Revision: ${ctx.job.requestId}`)) ctx.pushed = {};
    }
    return { pushedBefore: Boolean(ctx.pushed) };
  },
};

/**
 * agent: the one solve path (`solveWork`) on the comments as its task, without the planner
 * (the comments are the task list) or the model reviewer (the people who asked review the
 * result): the coder, the checks, the fixer rounds, the journal and the edit mode of a run.
 * A revision that changed nothing is no failure: its replies say so (publish).
 */
const reviseAgentStep: Step<ReviseContext> = {
  name: 'agent',
  async run(ctx) {
    if (ctx.pushed) return { skipped: 'pushed by an earlier attempt' };
    const { deps } = ctx;
    const work = workOf(ctx);
    const { gate, ws, baseSha } = work;
    // issue 31: the instructions reaching the files the review names and the branch changed (text mode shows them).
    const touched = gate.normalize([
      ...ctx.feedback.flatMap((f) => (f.path ? [f.path] : [])),
      ...(await deps.workspace.changedFiles(ws.dir, baseSha)),
    ]);
    const result = await solveWork(ctx, work, {
      baseline: baselineOf(ctx),
      type: 'revise',
      task: revisionTask(ctx.op, ctx.feedback),
      targetFiles: [...new Set(touched)],
      skipPlan: true,
      skipReview: true,
      // A check green on the head it revises must stay green, even when red on the base.
      mustStayGreen: ctx.op.checks.filter((c) => c.passed).map((c) => c.name),
    });
    if (result.outcome !== 'ready' && result.outcome !== 'no_changes')
      throw await stopForOutcome(ctx, work, { ...result, outcome: result.outcome });
    if (result.outcome === 'ready') ctx.finalChecks = result.checks;
    ctx.replies = parseReplies(deps.redactor.redact(result.summary), ctx.feedback);
    return { outcome: result.outcome, repairs: result.repairs };
  },
};

/** publish: the revision's commit through the publish gate, and the PR body re-signed for the new head. */
const revisePublishStep: Step<ReviseContext> = {
  name: 'publish',
  async run(ctx) {
    const { deps, job } = ctx;
    const { startSha } = workOf(ctx);
    const pr = ctx.op.pullRequest!;
    if (ctx.pushed) {
      const decided = ctx.pushed.replies;
      ctx.headSha = startSha;
      ctx.replies = ctx.feedback.map((f) => {
        const d = decided?.find((r) => r.id === f.id && r.kind === f.kind);
        return { feedback: f, outcome: d?.outcome ?? 'fixed', note: d?.note ?? '' };
      });
      return { headSha: startSha, resumed: true };
    }
    const work = workOf(ctx);
    const { ws } = work;
    if ((await deps.workspace.changedFiles(ws.dir, startSha)).length === 0) {
      // Nothing changed: a "fixed" without a change would be a false claim.
      ctx.headSha = startSha;
      ctx.replies = ctx.replies.map((r) =>
        r.outcome === 'fixed' ? { ...r, outcome: 'declined', note: r.note || 'no change was needed' } : r,
      );
    } else {
      const reviewers = [...new Set(ctx.feedback.map((f) => f.user))].join(', ');
      ctx.headSha = await publishChange(ctx, work, {
        message: `revise: address review by ${reviewers}`.slice(0, 100),
        trailers: { 'Pullwright-Operation': ctx.opId, 'Pullwright-Revision': job.requestId },
        texts: [{ channel: 'pr-body', text: pullRequestBody(ctx.op, ctx.op.summary ?? '') }],
      });
      const body = pullRequestBodyFor(deps, ctx.op, ctx.headSha);
      await withForgeRetries(ctx, work.budget, 'updating the pull request', () =>
        deps.forge.updatePullRequestBody(ctx.op.repo, pr.number, body),
      );
    }
    await deps.events.append(ctx.opId, 'revision', {
      state: 'pushed',
      requestId: job.requestId,
      headSha: ctx.headSha,
      changed: ctx.headSha !== startSha,
      replies: ctx.replies.map((r) => ({ id: r.feedback.id, kind: r.feedback.kind, outcome: r.outcome, note: r.note })),
    });
    return { headSha: ctx.headSha, changed: ctx.headSha !== startSha };
  },
};

/** reply: an answer in each review thread, the new head awaiting its own approval, the tracking comment. */
const replyStep: Step<ReviseContext> = {
  name: 'reply',
  async run(ctx) {
    const { deps, job } = ctx;
    const pr = ctx.op.pullRequest!;
    const headSha = ctx.headSha!;
    const short = headSha.slice(0, 7);
    for (const reply of ctx.replies) {
      if (reply.feedback.kind !== 'review_comment') continue;
      await deps.forge
        .replyToReviewComment(ctx.op.repo, pr.number, reply.feedback.id, deps.redactor.redact(replyText(reply, short)))
        .catch((e: unknown) =>
          ctx.log.warn({ err: (e as Error).message, comment: reply.feedback.id }, 'thread reply failed'),
        );
    }
    ctx.op = await deps.store.update(
      ctx.opId,
      (cur) => {
        const next = settleRound(
          transition(cur, 'awaiting_approval', { headSha, pullRequest: { ...pr, headSha } }),
          job.requestId,
          { state: 'pushed', headSha, entries: answeredEntries(ctx.replies) },
        );
        // The approval named an older head; the new one needs its own.
        delete next.approval;
        return next;
      },
      {
        type: 'status',
        data: { to: 'awaiting_approval', revision: job.requestId, headSha, replies: ctx.replies.length },
      },
    );
    const moved = headSha !== ctx.op.ledger?.find((r) => r.requestId === job.requestId)?.fromSha;
    await updateTrackingComment(
      deps,
      ctx.op,
      moved ? `Revision pushed as \`${short}\`.` : 'Revision done: no change was needed.',
      ctx.log,
    );
    return { replies: ctx.replies.length };
  },
};

/**
 * The `revise` job (a review, a `/pullwright` comment, a merge-train conflict): the same
 * frame, gates and budget as a run, on the operation's branch at the forge's head. A
 * revision that fails leaves the branch as it was and hands the PR back, saying why.
 */
const REVISE_JOB = (payload: JobData<'revise'>): JobDefinition<ReviseContext> => ({
  kind: 'revise',
  async claim(deps, op) {
    if (op.status === 'failed' || op.status === 'cancelled' || op.status === 'merged' || op.status === 'rejected')
      return undefined;
    if (op.status !== 'running' && (await revisionPushed(deps, op.id, payload.requestId))) return undefined;
    let current = op;
    if (current.status === 'approved')
      current = await invalidateApproval(deps.store, op.id, 'changes requested after approval');
    if (current.status === 'awaiting_approval')
      return deps.store.transition(op.id, 'running', {}, { step: 'revise', revision: payload.requestId });
    if (current.status === 'running' && (await currentRevision(deps, op.id)) === payload.requestId) return current;
    // A run or another revision holds the branch: the job runs again later (a transient error).
    throw new PullwrightError('unavailable', `operation ${op.id} is ${current.status}; the revision waits`, {
      status: current.status,
    });
  },
  context: (deps, op, log) => ({
    // Its own worktree: the run that opened the PR may still be cleaning up its own.
    ...workContext(
      deps,
      op,
      log.child({ revision: payload.requestId }),
      'revise',
      `${op.id}-revision`,
      `revise:${payload.requestId}`,
    ),
    kind: 'revise',
    job: payload,
    feedback: [],
    replies: [],
  }),
  steps: [
    feedbackStep,
    prepareStep('pull-request-head'),
    resumeStep,
    installStep,
    baselineStep,
    reviseAgentStep,
    verifyStep,
    revisePublishStep,
    replyStep,
  ],
  interrupted: workInterrupted,
  async stop(ctx, stop) {
    const { deps } = ctx;
    const current = await deps.store.get(ctx.opId);
    if (current.status !== 'running') return current;
    if (current.cancelRequested || stop.status === 'cancelled')
      return deps.store.end(
        ctx.opId,
        stop.status === 'cancelled' ? stop.outcome : { code: 'requested' },
        {},
        { job: 'revise' },
      );
    // Someone may have pushed meanwhile (one way a revision fails): approvals bind to the real head.
    const pr = current.pullRequest;
    const head = pr
      ? await deps.forge.getPullRequest(current.repo, pr.number).then(
          (p) => p.headSha,
          () => undefined,
        )
      : undefined;
    const moved = head && pr && head !== pr.headSha;
    // Read before release removes the revision's worktree, and before the status changes: whoever
    // sees the PR handed back finds the report on it at once.
    const report = pr
      ? await failureReportOf(ctx, stop, 'The revision could not be completed; the branch is unchanged')
      : undefined;
    const back = await deps.store.update(
      ctx.opId,
      (cur) =>
        settleRound(
          transition(cur, 'awaiting_approval', moved ? { headSha: head, pullRequest: { ...pr, headSha: head } } : {}),
          payload.requestId,
          { state: 'failed', error: stop.reason.slice(0, 4000) },
        ),
      {
        type: 'status',
        data: {
          to: 'awaiting_approval',
          revision: payload.requestId,
          revisionFailed: stop.reason,
          ...(moved ? { headSha: head } : {}),
        },
      },
    );
    if (pr) {
      const note = report ?? `The revision could not be completed; the branch is unchanged.\n\n${quote(stop.reason)}`;
      await updateTrackingComment(deps, back, note, ctx.log);
    }
    return back;
  },
  release: releaseWork,
});

export function reviseOperation(payload: ReviseJobPayload, deps: PipelineDeps): Promise<Operation> {
  const job = ReviseJob.parse(payload);
  return runJob(REVISE_JOB(job), job.opId, deps);
}
