import { NotFoundError } from '@pullwright/core';
import { type Runtime, verifyVerification } from '@pullwright/pipeline';
import type { Request, RequestHandler, Response } from 'express';
import { OperationIdParam } from './request-schemas.ts';
import { validate } from './validate.ts';

type Deps = Pick<Runtime, 'store' | 'forge' | 'config'>;

/**
 * `GET /v1/operations/:id/verification` → `{ valid, block?, reason? }`: whether the
 * verification block in the PR body as the forge has it now still carries our signature.
 * Read from the forge, not from the store: the question is whether the PR was tampered with.
 */
export function dashboardVerification(deps: Deps): RequestHandler {
  return async (req: Request, res: Response) => {
    const op = await deps.store.get(validate(OperationIdParam, req.params.id, 'id'));
    if (!op.pullRequest) throw new NotFoundError('pull request of operation', op.id);
    const key = deps.config.verificationKey;
    if (!key) {
      res.json({ valid: false, reason: 'no verification key is configured (VERIFICATION_KEY or API_TOKEN)' });
      return;
    }
    const pr = await deps.forge.getPullRequest(op.repo, op.pullRequest.number);
    res.json(verifyVerification(pr.body, key));
  };
}
