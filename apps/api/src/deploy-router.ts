import type { Runtime } from '@pullwright/pipeline';
import { Router } from 'express';
import { z } from 'zod';
import { callerOf } from './caller-of.ts';
import { OperationIdParam } from './request-schemas.ts';
import { validate } from './validate.ts';

const DeployBody = z.object({ user: z.string().min(1).max(200).optional() }).strict();

/** `POST /v1/operations/:id/deploy`: a deployer deploys a merged operation; 202 while it runs. */
export function deployRouter(deps: Pick<Runtime, 'actions'>): Router {
  const router = Router();
  router.post('/:id/deploy', async (req, res) => {
    const id = validate(OperationIdParam, req.params.id, 'id');
    const body = validate(DeployBody, req.body, 'body');
    res.status(202).json(await deps.actions.deploy(id, callerOf(res, body.user)));
  });
  return router;
}
