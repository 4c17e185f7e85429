import { PlanConfirmations, type Runtime } from '@pullwright/pipeline';
import { Router } from 'express';
import { z } from 'zod';
import { callerOf } from './caller-of.ts';
import { OperationIdParam } from './request-schemas.ts';
import { validate } from './validate.ts';

const PlanBody = z
  .object({
    decision: z.enum(['start', 'modify']),
    note: z.string().trim().min(1, 'must not be empty').max(4000).optional(),
    user: z.string().min(1).max(200).optional(),
  })
  .strict()
  .refine((b) => b.decision !== 'modify' || b.note !== undefined, {
    message: 'modify needs a note saying what should change',
    path: ['note'],
  });

/**
 * `POST /v1/operations/:id/plan` `{decision: 'start' | 'modify', note?}`: confirms a plan
 * that waits for a person (409 when none does). Cancelling is `POST /:id/cancel`.
 */
export function planRouter(deps: Pick<Runtime, 'store' | 'actions'>): Router {
  const router = Router();
  const plans = new PlanConfirmations(deps.store, deps.actions.policy);
  router.post('/:id/plan', async (req, res) => {
    const id = validate(OperationIdParam, req.params.id, 'id');
    const body = validate(PlanBody, req.body, 'body');
    res.json(await plans.confirmPlan(id, callerOf(res, body.user), body.decision, body.note));
  });
  return router;
}
