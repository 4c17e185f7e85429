import { BudgetDecisions, type Runtime } from '@pullwright/pipeline';
import { Router } from 'express';
import { z } from 'zod';
import { callerOf } from './caller-of.ts';
import { OperationIdParam } from './request-schemas.ts';
import { validate } from './validate.ts';

const BudgetBody = z
  .object({
    action: z.enum(['extend', 'stop']),
    /** USD added to the cost budget; required for `extend`. */
    amount: z.number().positive('must be above 0').max(1000).optional(),
    user: z.string().min(1).max(200).optional(),
  })
  .strict()
  .refine((b) => b.action !== 'extend' || b.amount !== undefined, {
    message: 'extend needs an amount in USD',
    path: ['amount'],
  });

/**
 * `POST /v1/operations/:id/budget` `{action: 'extend', amount} | {action: 'stop'}`: decides
 * an operation paused at its budget's threshold (409 when none is paused). The requester or
 * anyone who may approve it.
 */
export function budgetRouter(deps: Pick<Runtime, 'store' | 'actions'>): Router {
  const router = Router();
  const decisions = new BudgetDecisions(deps.store, deps.actions.policy);
  router.post('/:id/budget', async (req, res) => {
    const id = validate(OperationIdParam, req.params.id, 'id');
    const body = validate(BudgetBody, req.body, 'body');
    res.json(await decisions.decide(id, callerOf(res, body.user), body.action, body.amount));
  });
  return router;
}
