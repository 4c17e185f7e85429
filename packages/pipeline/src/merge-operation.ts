import { isPullwrightError, type Operation } from '@pullwright/core';
import type { PipelineDeps } from './pipeline-deps.ts';

/**
 * The `merge` job: approved → merging → merged. The forge merges only if the PR head is
 * still the approved sha, so a push after approval can never be merged unreviewed.
 */
export async function mergeOperation(
  opId: string,
  deps: Pick<PipelineDeps, 'store' | 'forge' | 'redactor' | 'logger'>,
): Promise<Operation> {
  const { store, forge } = deps;
  let op = await store.get(opId);
  if (op.status === 'approved') op = await store.transition(opId, 'merging', {}, { step: 'merge' });
  else if (op.status !== 'merging') return op;
  const pr = op.pullRequest;
  const approvedSha = op.approval?.headSha;
  if (!pr || !approvedSha)
    return store.transition(opId, 'failed', { error: 'nothing to merge: no pull request or approval recorded' });
  try {
    const { mergeSha } = await forge.mergePullRequest(op.repo, pr.number, {
      expectedHeadSha: approvedSha,
      message: `Merge pull request #${pr.number} from ${op.branch}\n\nPullwright-Operation: ${op.id}`,
    });
    return await store.transition(opId, 'merged', {}, { mergeSha });
  } catch (err) {
    if (!isPullwrightError(err)) deps.logger.error({ err, opId }, 'merge crashed');
    const reason = deps.redactor.redact(
      isPullwrightError(err) ? err.message : `internal error: ${(err as Error).message}`,
    );
    return store.transition(opId, 'failed', { error: `merge failed: ${reason}` });
  }
}
