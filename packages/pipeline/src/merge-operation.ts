import { isPullwrightError, isTransientError, type Operation, transition } from '@pullwright/core';
import { updateFromBase } from './merge-train.ts';
import { tokenHolder } from './operation-accounting.ts';
import type { PipelineDeps } from './pipeline-deps.ts';
import { enqueueRevision, trackingBody } from './revise-operation.ts';

type MergeDeps = Pick<
  PipelineDeps,
  | 'store'
  | 'events'
  | 'forge'
  | 'redactor'
  | 'logger'
  | 'mergeLock'
  | 'branches'
  | 'deployer'
  | 'queue'
  | 'workspace'
  | 'runner'
  | 'checkTimeoutMs'
>;

/**
 * The `merge` job: approved → merging → merged, through the merge train (see
 * `updateFromBase`): a branch behind its base gets the base merged in and its checks re-run
 * first. The forge merges only if the PR head is the approved sha, or the train's own
 * verified base merge of it, so a push after approval can never be merged unreviewed.
 */
export async function mergeOperation(opId: string, deps: MergeDeps): Promise<Operation> {
  const { store, mergeLock } = deps;
  let op = await store.get(opId);
  if (op.status !== 'approved' && op.status !== 'merging') return op;
  // One merge at a time per repository: from the mergeability check to the merge itself.
  await takeMergeLock(deps, op);
  let handedOver = false;
  try {
    if (op.status === 'approved') op = await store.transition(opId, 'merging', {}, { step: 'merge' });
    const done = await merge(op, deps);
    handedOver = done.status === 'running';
    return done;
  } finally {
    await mergeLock.release(op.repo, opId).catch((err) => deps.logger.warn({ err, opId }, 'merge lock release failed'));
    // The train's git token ends with the job, unless a conflict revision (same holder) now uses it.
    if (!handedOver) await deps.forge.revokeToken(op.repo, tokenHolder(opId, 'merge')).catch(() => undefined);
  }
}

/** Waits (visibly, as an event) while another operation merges into the same repository. */
async function takeMergeLock(deps: Pick<PipelineDeps, 'events' | 'mergeLock'>, op: Operation): Promise<void> {
  let announced = false;
  for (;;) {
    const grant = await deps.mergeLock.acquire(op.repo, { opId: op.id });
    if (grant.ok) {
      deps.mergeLock.keep(op.repo, op.id, { onLost: () => undefined });
      return;
    }
    if (!announced) await deps.events.append(op.id, 'waiting', { lock: 'merge', holder: grant.heldBy.opId });
    announced = true;
    await deps.mergeLock.waitFor(op.repo, { timeoutMs: 5_000 }).catch(() => undefined);
  }
}

async function merge(op: Operation, deps: MergeDeps): Promise<Operation> {
  const { store, forge } = deps;
  const opId = op.id;
  const pr = op.pullRequest;
  const approvedSha = op.approval?.headSha;
  if (!pr || !approvedSha)
    return store.transition(opId, 'failed', { error: 'nothing to merge: no pull request or approval recorded' });
  try {
    let mergeHead = approvedSha;
    const train = await updateFromBase(op, approvedSha, deps);
    if (train.kind === 'checks_failed') {
      return store.transition(opId, 'failed', {
        error: `merge failed: checks fail after merging ${op.baseBranch} (${train.baseSha.slice(0, 12)}) into the branch; the branch is unchanged.\n${train.reason}`,
      });
    }
    if (train.kind === 'conflict') return await reviseConflict(op, train, deps);
    if (train.kind === 'updated') {
      mergeHead = train.headSha;
      await untilPullRequestHead(deps, op.repo, pr.number, mergeHead);
      // The approval stays as given (for approvedSha); the merge binds to the new head only
      // because the train proved the difference is the base merge alone.
      await store.patch(
        opId,
        { headSha: mergeHead, pullRequest: { ...pr, headSha: mergeHead } },
        {
          type: 'base_merged',
          data: {
            approvedSha,
            baseSha: train.baseSha,
            headSha: mergeHead,
            checks: train.checks.map((c) => ({ name: c.name, exitCode: c.exitCode, durationMs: c.durationMs })),
          },
        },
      );
    }
    const { mergeSha } = await forge.mergePullRequest(op.repo, pr.number, {
      expectedHeadSha: mergeHead,
      message: `Merge pull request #${pr.number} from ${op.branch}\n\nPullwright-Operation: ${op.id}`,
    });
    const merged = await store.transition(opId, 'merged', {}, { mergeSha });
    if (op.branch) await deps.branches.drop(op.repo, op.branch);
    return (await deps.deployer.deployAfterMerge(opId)) ?? merged;
  } catch (err) {
    // Redis away for a moment: the job runs again and the train picks up its own pushed merge.
    if (isTransientError(err)) throw err;
    if (!isPullwrightError(err)) deps.logger.error({ err, opId }, 'merge crashed');
    const reason = deps.redactor.redact(
      isPullwrightError(err) ? err.message : `internal error: ${(err as Error).message}`,
    );
    return store.transition(opId, 'failed', { error: `merge failed: ${reason}` });
  }
}

/**
 * merging → running as a revision whose task is the conflict; the revision ends in
 * awaiting_approval, where the new head needs a new approval. The revise job is enqueued
 * first (its id is fixed by the base sha, so a retried merge job adds it once): it waits
 * with backoff until the operation is running.
 */
async function reviseConflict(
  op: Operation,
  conflict: { headSha: string; baseSha: string; files: string[]; task: string },
  deps: MergeDeps,
): Promise<Operation> {
  const requestId = `merge-conflict-${conflict.baseSha.slice(0, 12)}`;
  await enqueueRevision(deps.queue, {
    opId: op.id,
    requestId,
    feedback: [{ id: 0, kind: 'issue_comment', user: 'pullwright', body: conflict.task }],
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
  await deps.forge
    .upsertTrackingComment(
      op.repo,
      pr.number,
      trackingBody(
        running,
        `Merging into \`${op.baseBranch}\` conflicted in ${conflict.files.map((f) => `\`${f}\``).join(', ')}. A revision redoes the change on the new base; it will need a new approval.`,
      ),
    )
    .catch((err: unknown) =>
      deps.logger.warn({ err: (err as Error).message, opId: op.id }, 'tracking comment update failed'),
    );
  return running;
}

/**
 * GitHub updates a PR's head from a push asynchronously; a merge naming the new sha before
 * it has would be refused as "head moved". Waits up to ~15 s, then lets the merge decide.
 */
async function untilPullRequestHead(
  deps: Pick<MergeDeps, 'forge'>,
  repo: string,
  number: number,
  sha: string,
): Promise<void> {
  for (let delay = 100; delay < 10_000; delay *= 2) {
    const pr = await deps.forge.getPullRequest(repo, number).catch(() => undefined);
    if (pr?.headSha === sha) return;
    await new Promise((r) => setTimeout(r, delay));
  }
}
