import { FINAL_STATUSES, type Operation, transition } from '@pullwright/core';
import { toCheckResults, tokenHolder } from '../budget/operation-accounting.ts';
import { type FrameContext, type JobDefinition, runJob, type Step } from '../frame/job-frame.ts';
import type { PipelineDeps } from '../frame/pipeline-deps.ts';
import { StopOperation } from '../frame/stop-operation.ts';
import { type MergeTrainResult, updateFromBase } from '../merge/merge-train.ts';
import { publishedPullRequestBody } from '../tracking/pull-request-body.ts';
import { updateTrackingComment } from '../tracking/tracking-comment.ts';
import { releaseFeatureRequest } from './feature-release.ts';

interface MergeContext extends FrameContext {
  readonly kind: 'merge';
  /** The head the merge binds to: the approved sha, or the train's verified base merge of it. */
  mergeHead?: string;
  train?: MergeTrainResult;
  /** A conflict went back to a revision: the job ends without merging, and the revision owns the token. */
  handedOver: boolean;
  lockHeld: boolean;
}

/** One merge at a time per repository, from the mergeability check to the merge itself; waiting is visible. */
const mergeLockStep: Step<MergeContext> = {
  name: 'merge_lock',
  async run(ctx) {
    const { deps, op } = ctx;
    let announced = false;
    for (;;) {
      const grant = await deps.mergeLock.acquire(op.repo, { opId: op.id });
      if (grant.ok) {
        deps.mergeLock.keep(op.repo, op.id, { onLost: () => undefined });
        ctx.lockHeld = true;
        return { waited: announced };
      }
      if (!announced) await deps.events.append(op.id, 'waiting', { lock: 'merge', holder: grant.heldBy.opId });
      announced = true;
      await deps.mergeLock.waitFor(op.repo, { timeoutMs: 5_000 }).catch(() => undefined);
    }
  },
};

/**
 * The merge train: a branch behind its base gets the base merged in and its checks re-run
 * (see `updateFromBase`); the new head is pushed through the train and its PR body re-signed
 * for that head, so the receipt always describes what the PR shows.
 */
const trainStep: Step<MergeContext> = {
  name: 'update_from_base',
  async run(ctx) {
    const { deps } = ctx;
    const op = ctx.op;
    const pr = op.pullRequest;
    const approvedSha = op.approval?.headSha;
    if (!pr || !approvedSha)
      throw new StopOperation({ code: 'not_found', detail: 'nothing to merge: no pull request or approval recorded' });
    ctx.mergeHead = approvedSha;
    const train = await updateFromBase(op, approvedSha, deps);
    ctx.train = train;
    if (train.kind === 'checks_failed') {
      throw new StopOperation({
        code: 'checks_failed',
        detail: `after merging ${op.baseBranch} (${train.baseSha.slice(0, 12)}) into the branch; the branch is unchanged.\n${train.reason}`,
      });
    }
    if (train.kind === 'conflict') {
      ctx.op = await reviseConflict(ctx, train);
      ctx.handedOver = true;
      return { kind: train.kind, files: train.files };
    }
    if (train.kind === 'updated') {
      ctx.mergeHead = train.headSha;
      await untilPullRequestHead(deps, op.repo, pr.number, train.headSha);
      // The approval stays as given (for approvedSha); the merge binds to the new head only
      // because the train proved the difference is the base merge alone.
      ctx.op = await deps.store.patch(
        ctx.opId,
        {
          headSha: train.headSha,
          pullRequest: { ...pr, headSha: train.headSha },
          checks: toCheckResults(train.checks, [], deps.redactor),
          ...(train.signature ? { commitSignature: train.signature } : {}),
        },
        {
          type: 'base_merged',
          data: {
            approvedSha,
            baseSha: train.baseSha,
            headSha: train.headSha,
            checks: train.checks.map((c) => ({ name: c.name, exitCode: c.exitCode, durationMs: c.durationMs })),
          },
        },
      );
      await deps.forge.updatePullRequestBody(
        op.repo,
        pr.number,
        publishedPullRequestBody(ctx.op, ctx.op.summary ?? '', train.headSha, deps.redactor, deps.verificationKey),
      );
    }
    return { kind: train.kind };
  },
};

/** merge: the forge merges only if the PR head is still the head this job bound to. */
const mergeStep: Step<MergeContext> = {
  name: 'merge',
  async run(ctx) {
    if (ctx.handedOver) return { skipped: 'a revision redoes the conflicting change first' };
    const { deps } = ctx;
    const op = ctx.op;
    const pr = op.pullRequest!;
    const { mergeSha } = await deps.forge.mergePullRequest(op.repo, pr.number, {
      expectedHeadSha: ctx.mergeHead!,
      message: `Merge pull request #${pr.number} from ${op.branch}\n\nPullwright-Operation: ${op.id}`,
    });
    ctx.op = await deps.store.end(ctx.opId, { code: 'merged' }, { mergeSha }, { mergeSha });
    if (op.branch) await deps.branches.drop(op.repo, op.branch);
    // Deploys run as their own job when the policy says `on_merge`.
    ctx.op = (await deps.deployer.deployAfterMerge(ctx.opId)) ?? ctx.op;
    await releaseFeatureRequest(deps, ctx.op);
    return { mergeSha };
  },
};

/**
 * merging → running as a revision whose task is the conflict; the revision ends in
 * awaiting_approval, where the new head needs a new approval. The revise job is enqueued
 * first (its id is fixed by the base sha, so a retried merge job adds it once): it waits
 * until the operation is running.
 */
async function reviseConflict(
  ctx: MergeContext,
  conflict: { headSha: string; baseSha: string; files: string[]; task: string },
): Promise<Operation> {
  const { deps, op } = ctx;
  const requestId = `merge-conflict-${conflict.baseSha.slice(0, 12)}`;
  await deps.queue.add('revise', {
    opId: op.id,
    requestId,
    feedback: [{ id: 0, kind: 'merge_conflict', user: 'pullwright', body: conflict.task }],
  });
  const pr = { ...op.pullRequest!, headSha: conflict.headSha };
  const running = await deps.store.update(
    op.id,
    (cur) => {
      const next = transition(cur, 'running', { headSha: conflict.headSha, pullRequest: pr });
      delete next.approval;
      return next;
    },
    {
      type: 'status',
      data: {
        to: 'running',
        revision: requestId,
        reason: `merge conflict with ${op.baseBranch} in ${conflict.files.join(', ')}`,
        conflict: conflict.files,
        approvedSha: op.approval?.headSha,
        baseSha: conflict.baseSha,
        headSha: conflict.headSha,
        approvalInvalidated: true,
      },
    },
  );
  await updateTrackingComment(
    deps,
    running,
    `Merging into \`${op.baseBranch}\` conflicted in ${conflict.files.map((f) => `\`${f}\``).join(', ')}. A revision redoes the change on the new base; it will need a new approval.`,
    ctx.log,
  );
  return running;
}

/**
 * GitHub updates a PR's head from a push asynchronously; a merge naming the new sha before
 * it has would be refused as "head moved". Waits up to ~15 s, then lets the merge decide.
 */
async function untilPullRequestHead(deps: Pick<PipelineDeps, 'forge'>, repo: string, number: number, sha: string) {
  for (let delay = 100; delay < 10_000; delay *= 2) {
    const pr = await deps.forge.getPullRequest(repo, number).catch(() => undefined);
    if (pr?.headSha === sha) return;
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** The `merge` job: claim → merge lock → update from base (merge train) → merge(expected sha) → release. */
const MERGE_JOB: JobDefinition<MergeContext> = {
  kind: 'merge',
  async claim(deps, op) {
    if (op.status === 'approved') return deps.store.transition(op.id, 'merging', {}, { step: 'merge' });
    return op.status === 'merging' ? op : undefined;
  },
  context: (deps, op, log) => ({ deps, kind: 'merge', opId: op.id, op, log, handedOver: false, lockHeld: false }),
  steps: [mergeLockStep, trainStep, mergeStep],
  stop: async (ctx, stop) =>
    FINAL_STATUSES.has(ctx.op.status) ? ctx.op : ctx.deps.store.end(ctx.opId, stop.outcome, {}, { job: 'merge' }),
  async release(ctx) {
    const { deps, op } = ctx;
    if (ctx.lockHeld)
      await deps.mergeLock.release(op.repo, op.id).catch((err) => ctx.log.warn({ err }, 'merge lock release failed'));
    // The train's git token ends with the job, unless a conflict revision (same holder) now uses it.
    if (!ctx.handedOver) await deps.forge.revokeToken(op.repo, tokenHolder(op.id, 'merge')).catch(() => undefined);
  },
};

export function mergeOperation(opId: string, deps: PipelineDeps): Promise<Operation> {
  return runJob(MERGE_JOB, opId, deps);
}
