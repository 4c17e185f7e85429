import { FeatureRequestId } from '@pullwright/core';
import type { Caller, Runtime } from '@pullwright/pipeline';
import { type Request, type Response, Router } from 'express';
import { availableRepo } from './available-repo.ts';
import {
  CreateFeatureRequestBody,
  FeatureRequestListQuery,
  ImplementBody,
  TriageBody,
  UserOnlyBody,
} from './request-schemas.ts';
import { principalOf } from './session-auth.ts';
import { validate } from './validate.ts';

type Deps = Pick<Runtime, 'features' | 'featureRequests' | 'forge' | 'config'>;

function requestId(req: Request): string {
  return validate(FeatureRequestId, req.params.id, 'id');
}

/** A signed-in dashboard user acts as themselves (any `user` in the body is ignored); an API client names its user. */
function callerOf(res: Response, user: string): Caller {
  const principal = principalOf(res);
  return principal.kind === 'session' ? { user: principal.session.user, source: 'dashboard' } : { user, source: 'api' };
}

/**
 * REST v1: feature requests (seed 001). Capture queues the model's analysis in a worker;
 * triage and "Implement" follow the policy (see pipeline `FeatureRequests`).
 */
export function featureRequestsRouter(deps: Deps): Router {
  const router = Router();

  router.post('/', async (req, res) => {
    const body = validate(CreateFeatureRequestBody, req.body, 'body');
    const repo = await availableRepo(deps, body.repo);
    const by = callerOf(res, body.user);
    const request = await deps.featureRequests.capture(
      { repo, baseBranch: body.baseBranch, description: body.description, requester: by },
      by,
    );
    res.status(202).location(`/v1/feature-requests/${request.id}`).json({ id: request.id, status: request.status });
  });

  router.get('/', async (req, res) => {
    const query = validate(FeatureRequestListQuery, req.query, 'query');
    res.json({
      featureRequests: await deps.features.list({
        limit: query.limit,
        ...(query.status ? { status: query.status } : {}),
      }),
    });
  });

  router.get('/:id', async (req, res) => {
    res.json(await deps.features.get(requestId(req)));
  });

  router.post('/:id/analyze', async (req, res) => {
    const body = validate(UserOnlyBody, req.body, 'body');
    res.status(202).json(await deps.featureRequests.reanalyze(requestId(req), callerOf(res, body.user)));
  });

  router.post('/:id/triage', async (req, res) => {
    const id = requestId(req);
    const { user, decision, reason, priority, acceptanceCriteria } = validate(TriageBody, req.body, 'body');
    res.json(
      await deps.featureRequests.triage(id, callerOf(res, user), {
        decision,
        ...(reason ? { reason } : {}),
        ...(priority ? { priority } : {}),
        ...(acceptanceCriteria ? { acceptanceCriteria } : {}),
      }),
    );
  });

  router.post('/:id/implement', async (req, res) => {
    const id = requestId(req);
    const body = validate(ImplementBody, req.body, 'body');
    const { request, op } = await deps.featureRequests.implement(
      id,
      callerOf(res, body.user),
      body.baseBranch ? { baseBranch: body.baseBranch } : {},
    );
    res
      .status(202)
      .location(`/v1/operations/${op.id}`)
      .json({ featureRequest: request, operation: { id: op.id, status: op.status } });
  });

  return router;
}
