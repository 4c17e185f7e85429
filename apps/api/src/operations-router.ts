import { randomBytes } from 'node:crypto';
import { PullwrightError, ValidationError, withDescription } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';
import { type Request, Router } from 'express';
import { availableRepo } from './available-repo.ts';
import { callerOf } from './caller-of.ts';
import {
  ApproveBody,
  CancelBody,
  CreateOperationBody,
  ListQuery,
  MessageBody,
  OperationIdParam,
  RejectBody,
  ReviseBody,
} from './request-schemas.ts';
import { streamEvents } from './sse-events.ts';
import { validate } from './validate.ts';

type Deps = Pick<Runtime, 'store' | 'events' | 'inbox' | 'queue' | 'forge' | 'actions' | 'redis' | 'config' | 'logger'>;

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,200}$/;

function opId(req: Request): string {
  return validate(OperationIdParam, req.params.id, 'id');
}

/** REST v1: operations. */
export function operationsRouter(deps: Deps): Router {
  const router = Router();

  router.post('/', async (req, res) => {
    const body = validate(CreateOperationBody, req.body, 'body');
    const repo = await availableRepo(deps, body.repo);
    const key = req.get('idempotency-key');
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      throw new ValidationError('invalid Idempotency-Key', [
        { field: 'Idempotency-Key', reason: 'must be 1-200 of A-Z a-z 0-9 . _ : -' },
      ]);
    }
    const input = {
      type: body.type,
      repo,
      baseBranch: body.baseBranch,
      description: body.description,
      context: body.context,
      ...(body.budget ? { budget: body.budget } : {}),
      ...(body.confirmPlan !== undefined ? { confirmPlan: body.confirmPlan } : {}),
      priority: body.priority,
      targetFiles: body.targetFiles,
      ...(body.approvalRequired !== undefined ? { approvalRequired: body.approvalRequired } : {}),
      ...(body.featureContext ? { featureContext: body.featureContext } : {}),
      requester: { source: body.source, user: body.user },
    };
    // The requester needs the role to request (policy); enqueued once per Idempotency-Key.
    const { op, created } = await deps.actions.create(input, key);
    res
      .status(created ? 202 : 200)
      .location(`/v1/operations/${op.id}`)
      .json({ id: op.id, status: op.status });
  });

  router.get('/', async (req, res) => {
    const query = validate(ListQuery, req.query, 'query');
    const filter = {
      limit: query.limit,
      ...(query.status ? { status: query.status } : {}),
      ...(query.repo ? { repo: query.repo } : {}),
    };
    res.json({ operations: await deps.store.list(filter) });
  });

  router.get('/:id', async (req, res) => {
    res.json(await deps.store.get(opId(req)));
  });

  router.get('/:id/events', async (req, res) => {
    const id = opId(req);
    await deps.store.get(id);
    if (req.accepts(['text/event-stream', 'application/json']) === 'application/json') {
      return res.json({ events: (await deps.events.list(id)).map(withDescription) });
    }
    return streamEvents(req, res, id, deps);
  });

  router.post('/:id/approve', async (req, res) => {
    const body = validate(ApproveBody, req.body, 'body');
    res.json(await deps.actions.approve(opId(req), { user: body.user, source: 'api' }, body.headSha));
  });

  router.post('/:id/reject', async (req, res) => {
    const body = validate(RejectBody, req.body, 'body');
    res.json(await deps.actions.reject(opId(req), { user: body.user, source: 'api' }, body.reason));
  });

  router.post('/:id/cancel', async (req, res) => {
    const body = validate(CancelBody, req.body, 'body');
    res.json(await deps.actions.cancel(opId(req), { user: body.user, source: 'api' }));
  });

  /** A note for the model while the operation runs; it reads it before its next step. */
  router.post('/:id/messages', async (req, res) => {
    const id = opId(req);
    const body = validate(MessageBody, req.body, 'body');
    const by = callerOf(res, body.user);
    const op = await deps.actions.steer(id, by);
    if (op.status !== 'running' && op.status !== 'queued') {
      throw new PullwrightError(
        'invalid_transition',
        `messages reach only queued or running operations; this one is ${op.status}`,
        { from: op.status, to: op.status },
      );
    }
    await deps.inbox.push(id, { from: by.user, source: by.source, text: body.text });
    res.status(202).json({ queued: true });
  });

  /**
   * Request changes to an open PR in words: a ledger entry and the same revise job as a
   * GitHub review (`permissions.revise`). An Idempotency-Key makes a retried request revise once.
   */
  router.post('/:id/revise', async (req, res) => {
    const id = opId(req);
    const body = validate(ReviseBody, req.body, 'body');
    const key = req.get('idempotency-key');
    if (key !== undefined && !/^[A-Za-z0-9_-]{1,80}$/.test(key)) {
      throw new ValidationError('invalid Idempotency-Key', [
        { field: 'Idempotency-Key', reason: 'must be 1-80 of A-Z a-z 0-9 _ -' },
      ]);
    }
    const by = callerOf(res, body.user);
    const requestId = `${by.source}-${key ?? randomBytes(8).toString('hex')}`;
    const queued = await deps.actions.requestChanges(id, by, body.instruction, requestId);
    res.status(202).json({ id, requestId: queued.requestId });
  });

  return router;
}
