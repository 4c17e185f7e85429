import type { Operation } from '@pullwright/core';
import type { PipelineDeps } from '../frame/pipeline-deps.ts';

/**
 * After an operation merges, and again after its deploy: the feature request it implements
 * is `released` (with its PR) once merged and — where the policy configures a deploy — once
 * that deploy succeeded; merged and waiting for the deploy meanwhile. Only the request's
 * current operation moves it (an older, abandoned attempt does not). A failure here is
 * logged, never the merge's or the deploy's failure.
 */
export async function releaseFeatureRequest(deps: PipelineDeps, op: Operation): Promise<void> {
  const id = op.featureContext?.featureRequestId;
  if (!id || op.status !== 'merged') return;
  const waitsForDeploy = Boolean(deps.approvalPolicy.policyOf(op).deploy) && op.deploy?.status !== 'succeeded';
  const pullRequest = op.pullRequest ? { number: op.pullRequest.number, url: op.pullRequest.url } : undefined;
  try {
    await deps.features.update(id, (cur) => {
      if (cur.operationId !== op.id || cur.status === 'released') return cur;
      const linked = { ...cur, ...(pullRequest ? { pullRequest } : {}) };
      if (waitsForDeploy) return { ...linked, status: 'merged' };
      return { ...linked, status: 'released', releasedAt: new Date().toISOString() };
    });
  } catch (err) {
    deps.logger.warn({ opId: op.id, featureRequest: id, err: (err as Error).message }, 'feature request not updated');
  }
}
