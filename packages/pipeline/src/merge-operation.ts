import { isPullwrightError, type Operation } from '@pullwright/core';
import type { PipelineDeps } from './pipeline-deps.ts';

/**
 * The `merge` job: approved → merging → merged. The forge merges only if the PR head is
 * still the approved sha, so a push after approval can never be merged unreviewed.
 */
export async function mergeOperation(
  opId: string,
  deps: Pick<
    PipelineDeps,
    'store' | 'events' | 'forge' | 'redactor' | 'logger' | 'mergeLock' | 'branches' | 'deployer'
  >,
): Promise<Operation> {
  const { store, forge, mergeLock } = deps;
  let op = await store.get(opId);
  if (op.status !== 'approved' && op.status !== 'merging') return op;
  // One merge at a time per repository: from the mergeability check to the merge itself.
  await takeMergeLock(deps, op);
  try {
    if (op.status === 'approved') op = await store.transition(opId, 'merging', {}, { step: 'merge' });
    return await merge(op, deps);
  } finally {
    await mergeLock.release(op.repo, opId).catch((err) => deps.logger.warn({ err, opId }, 'merge lock release failed'));
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

async function merge(
  op: Operation,
  deps: Pick<PipelineDeps, 'store' | 'forge' | 'redactor' | 'logger' | 'branches' | 'deployer'>,
): Promise<Operation> {
  const { store, forge } = deps;
  const opId = op.id;
  const pr = op.pullRequest;
  const approvedSha = op.approval?.headSha;
  if (!pr || !approvedSha)
    return store.transition(opId, 'failed', { error: 'nothing to merge: no pull request or approval recorded' });
  try {
    const { mergeSha } = await forge.mergePullRequest(op.repo, pr.number, {
      expectedHeadSha: approvedSha,
      message: `Merge pull request #${pr.number} from ${op.branch}\n\nPullwright-Operation: ${op.id}`,
    });
    const merged = await store.transition(opId, 'merged', {}, { mergeSha });
    if (op.branch) await deps.branches.drop(op.repo, op.branch);
    return (await deps.deployer.deployAfterMerge(opId)) ?? merged;
  } catch (err) {
    if (!isPullwrightError(err)) deps.logger.error({ err, opId }, 'merge crashed');
    const reason = deps.redactor.redact(
      isPullwrightError(err) ? err.message : `internal error: ${(err as Error).message}`,
    );
    return store.transition(opId, 'failed', { error: `merge failed: ${reason}` });
  }
}
