import { randomBytes } from 'node:crypto';
import { lastReviewedSha, ValidationError } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';
import { interdiff } from '@pullwright/workspace';
import { Router } from 'express';
import { z } from 'zod';
import { dashboardDiff } from './dashboard-diff.ts';
import { OperationIdParam } from './request-schemas.ts';
import { validate } from './validate.ts';

const InterdiffQuery = z.object({
  from: z
    .string()
    .regex(/^[0-9a-f]{7,64}$/, 'must be a commit sha')
    .optional(),
});

/**
 * `GET /v1/operations/:id/interdiff?from=<sha>`: what changed on the branch since `from`
 * (default: the last approved head, else the head the last change request was made on),
 * with base changes merged in meanwhile factored out. Read from the API's own mirror.
 */
export function interdiffRouter(deps: Pick<Runtime, 'store' | 'forge' | 'workspace' | 'redactor'>): Router {
  const router = Router();
  router.get('/:id/interdiff', async (req, res) => {
    const op = await deps.store.get(validate(OperationIdParam, req.params.id, 'id'));
    const query = validate(InterdiffQuery, req.query, 'query');
    const to = op.pullRequest?.headSha;
    if (!to) {
      throw new ValidationError(`${op.id} has no pull request yet`, [
        { field: 'id', reason: 'the operation has no pull request to compare' },
      ]);
    }
    const from = query.from ?? lastReviewedSha(op);
    if (!from) {
      throw new ValidationError('from is required: nobody has reviewed an earlier head of this branch', [
        { field: 'from', reason: 'no approved or reviewed head to default to' },
      ]);
    }
    // Each request its own forge credentials, ended when its fetch is done (a shared holder
    // would be revoked under a concurrent request's feet).
    const holder = `interdiff-${randomBytes(6).toString('hex')}`;
    const auth = await deps.forge.gitAuth(op.repo, holder);
    try {
      const dir = await deps.workspace.syncMirror(op.repo, deps.forge.cloneUrl(op.repo), auth);
      const d = await interdiff(dir, from, to, `refs/remotes/origin/${op.baseBranch}`);
      res.json({
        from: d.from,
        to: d.to,
        base: d.base ?? null,
        baseFactoredOut: d.baseFactoredOut,
        files: dashboardDiff(d.diff, deps.redactor),
      });
    } finally {
      if (auth) await deps.forge.revokeToken(op.repo, holder).catch(() => undefined);
    }
  });
  return router;
}
