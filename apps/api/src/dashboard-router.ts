import type { Caller, Runtime } from '@pullwright/pipeline';
import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { dashboardDiff } from './dashboard-diff.ts';
import { dashboardRetry } from './dashboard-retry.ts';
import { sendError } from './http-errors.ts';
import { HeadSha, OperationIdParam } from './request-schemas.ts';
import { type Principal, principalOf } from './session-auth.ts';
import type { SessionCredentials } from './session-credentials.ts';
import { validate } from './validate.ts';

type Deps = Pick<Runtime, 'store' | 'events' | 'queue' | 'forge' | 'actions' | 'redactor'>;
type SessionPrincipal = Extract<Principal, { kind: 'session' }>;

/** The page always sends the sha it showed: an approval is for what the approver saw. */
const SessionApproveBody = z.object({ headSha: HeadSha }).strict();
const SessionRejectBody = z.object({ reason: z.string().trim().max(2000).optional() }).strict();
const SessionCancelBody = z.object({}).strict();
const RetryBody = z.object({ user: z.string().min(1).max(200).default('api') }).strict();

function opId(req: Request): string {
  return validate(OperationIdParam, req.params.id, 'id');
}

function asSession(res: Response): SessionPrincipal | undefined {
  const principal = principalOf(res);
  return principal.kind === 'session' ? principal : undefined;
}

/**
 * What the dashboard adds to `/v1/operations`, mounted in front of the REST router. For a
 * signed-in user the session decides who acts (any `user` or `source` in the body is
 * overwritten), and approve/reject check the approver list; bearer requests pass through
 * to the REST router unchanged. Retry and diff serve both.
 */
export function dashboardRouter(deps: Deps, credentials: SessionCredentials): Router {
  const router = Router();

  router.post('/', (req, res, next) => {
    const session = asSession(res);
    if (session && req.body && typeof req.body === 'object' && !Array.isArray(req.body)) {
      req.body = { ...req.body, ...credentials.callerOf(session.session) };
    }
    next();
  });

  const approverOnly = (session: SessionPrincipal, res: Response): boolean => {
    if (credentials.canApprove(session.session)) return true;
    const why =
      session.session.via === 'github'
        ? 'has no role that may approve (IDENTITIES)'
        : 'is not on the approver list (DASHBOARD_APPROVERS)';
    sendError(res, 403, 'forbidden', `${session.session.user} ${why}`);
    return false;
  };

  /**
   * `POST /:id/<action>` for a signed-in user: the body checked, then the approver list when
   * `who` is `approvers`, and the session as the caller. A bearer request falls through to REST.
   */
  const sessionAction = <S extends z.ZodType>(
    action: string,
    body: S,
    who: 'anyone' | 'approvers',
    act: (id: string, by: Caller, body: z.infer<S>) => Promise<unknown>,
  ): void => {
    router.post(`/:id/${action}`, async (req, res, next) => {
      const session = asSession(res);
      if (!session) return next();
      const id = opId(req);
      const parsed = validate(body, req.body, 'body');
      if (who === 'approvers' && !approverOnly(session, res)) return;
      res.json(await act(id, credentials.callerOf(session.session), parsed));
    });
  };

  sessionAction('approve', SessionApproveBody, 'approvers', (id, by, { headSha }) =>
    deps.actions.approve(id, by, headSha),
  );
  sessionAction('reject', SessionRejectBody, 'approvers', (id, by, { reason }) =>
    deps.actions.reject(id, by, reason || undefined),
  );
  sessionAction('cancel', SessionCancelBody, 'anyone', (id, by) => deps.actions.cancel(id, by));

  router.post('/:id/retry', async (req, res) => {
    const id = opId(req);
    const session = asSession(res);
    const by = session
      ? credentials.callerOf(session.session)
      : { user: validate(RetryBody, req.body, 'body').user, source: 'api' as const };
    const { op, created } = await dashboardRetry(deps, id, by);
    res
      .status(created ? 202 : 200)
      .location(`/v1/operations/${op.id}`)
      .json({ id: op.id, status: op.status, retryOf: id });
  });

  /** The pull request's diff, split per file with numbered lines; empty until a PR exists. */
  router.get('/:id/diff', async (req, res) => {
    const op = await deps.store.get(opId(req));
    if (!op.pullRequest) return res.json({ pullRequest: null, headSha: null, files: [] });
    const diff = await deps.forge.pullRequestDiff(op.repo, op.pullRequest.number);
    return res.json({
      pullRequest: op.pullRequest.number,
      headSha: op.pullRequest.headSha,
      files: dashboardDiff(diff, deps.redactor),
    });
  });

  return router;
}
