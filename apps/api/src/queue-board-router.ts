import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { ApprovalPolicy, Runtime } from '@pullwright/pipeline';
import { type RequestHandler, Router } from 'express';
import { sendError } from './http-errors.ts';
import { principalOf } from './session-auth.ts';
import type { SessionCredentials } from './session-credentials.ts';

export const QUEUE_BOARD_PATH = '/admin/queues';

/**
 * The queue as BullMQ operators know it (bull-board): jobs by state, their data, attempts,
 * errors and logs. Admins only — the API token holder, or a signed-in user whose role is
 * admin — because job data names repositories and failures. Read-only: retrying or
 * removing a job behind the operation's back would break what the job frame guarantees
 * (cancel an operation instead), and the board's buttons could not send our CSRF header.
 */
export function queueBoardRouter(
  deps: Pick<Runtime, 'queue'>,
  auth: RequestHandler,
  credentials: SessionCredentials,
  policy: Pick<ApprovalPolicy, 'identity'>,
): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    queues: [new BullMQAdapter(deps.queue.queue, { readOnlyMode: true, description: 'code operations' })],
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Pullwright queue' } },
  });
  const adminOnly: RequestHandler = (_req, res, next) => {
    const principal = principalOf(res);
    if (principal.kind === 'bearer' || principal.session.via === 'api_token') return next();
    const identity = policy.identity(credentials.callerOf(principal.session));
    if (identity.role === 'admin') return next();
    return sendError(
      res,
      403,
      'forbidden',
      `${principal.session.user} may not see the queue: that needs the admin role`,
    );
  };
  // The board's own page sets inline styles; scripts stay same-origin only. Its page names
  // `<base href="/admin/queues/">` to load its assets: `base-uri 'none'` blocked that, and at
  // `/admin/queues` (no trailing slash) the board then stayed on "Loading" forever.
  const boardPolicy: RequestHandler = (_req, res, next) => {
    res.set(
      'Content-Security-Policy',
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
    );
    next();
  };
  const router = Router();
  router.use(auth, adminOnly, boardPolicy, serverAdapter.getRouter());
  return router;
}
