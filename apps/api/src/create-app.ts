import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RepoSlug } from '@pullwright/core';
import { LocalForge } from '@pullwright/forge';
import { DEMO_REFUSAL, type Runtime } from '@pullwright/pipeline';
import express, { type Express } from 'express';
import { z } from 'zod';
import { accessLog } from './access-log.ts';
import { boardRouter } from './board-router.ts';
import { budgetRouter } from './budget-router.ts';
import { streamFeed } from './dashboard-feed.ts';
import { dashboardQueueHealth } from './dashboard-queue-health.ts';
import { dashboardRouter } from './dashboard-router.ts';
import { dashboardSecurityHeaders } from './dashboard-security-headers.ts';
import { dashboardVerification } from './dashboard-verification.ts';
import { deployRouter } from './deploy-router.ts';
import { evalRunsRouter } from './eval-runs-router.ts';
import { eventsRouter } from './events-router.ts';
import { featureRequestsRouter } from './feature-requests-router.ts';
import { githubSignInRouter } from './github-sign-in-router.ts';
import { githubWebhooksRouter } from './github-webhooks-router.ts';
import { errorHandler, sendError } from './http-errors.ts';
import { interdiffRouter } from './interdiff-router.ts';
import { internalRouter } from './internal-router.ts';
import { refuseDeepJson } from './json-depth.ts';
import { metricsRouter } from './metrics-router.ts';
import { operationFilesRouter } from './operation-files-router.ts';
import { operationsRouter } from './operations-router.ts';
import { planRouter } from './plan-router.ts';
import { QUEUE_BOARD_PATH, queueBoardRouter } from './queue-board-router.ts';
import { requestSpan } from './request-span.ts';
import { schedulesRouter } from './schedules-router.ts';
import { sessionAuth } from './session-auth.ts';
import { SessionCredentials } from './session-credentials.ts';
import { sessionRouter } from './session-router.ts';
import { SessionStore } from './session-store.ts';
import { slackRouter } from './slack-router.ts';
import { createSlackServices, type SlackRuntime } from './slack-services.ts';
import { validate } from './validate.ts';
import { wellFormedBody } from './well-formed-body.ts';

const DASHBOARD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dashboard/public');
const READY_TIMEOUT_MS = 1000;

/** The API wires Slack itself, so it takes Slack's runtime plus what its own routes use. */
type ApiDeps = SlackRuntime &
  Pick<
    Runtime,
    | 'artifacts'
    | 'locks'
    | 'workspace'
    | 'demo'
    | 'features'
    | 'permissionGaps'
    | 'scheduledWork'
    | 'schedules'
    | 'inboundEvents'
    | 'internal'
  >;

/** The operation whose branch this is: its id follows the prefix, and its record names the branch back. */
async function operationOfBranch(store: ApiDeps['store'], branch: string) {
  const id = /(?:^|\/)([a-z0-9]{6,40})(?:-|$)/.exec(branch)?.[1];
  const op = id ? await store.find(id) : undefined;
  return op?.branch === branch ? op : undefined;
}

export interface AppOptions {
  /** Epoch milliseconds for session lifetimes and queue ages; tests move it instead of waiting. */
  now?: () => number;
}

/** The HTTP surface: health, REST v1, the dashboard page, and the local forge's PR view. */
export function createApp(deps: ApiDeps, { now = Date.now }: AppOptions = {}): Express {
  const { config } = deps;
  if (!config.apiToken) throw new Error('API_TOKEN must be set before the API starts');
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(accessLog(deps.logger));
  app.use(requestSpan());
  // Before the JSON parser: the webhook signature covers the raw body.
  if (config.github.webhookSecret) {
    app.use(
      '/github/webhooks',
      githubWebhooksRouter({ ...deps, keyPrefix: config.redisPrefix, secret: config.github.webhookSecret }),
    );
  }
  // Before the JSON parser: Slack's signature is over the raw bytes, which these routes read themselves.
  const slack = createSlackServices(deps);
  if (slack?.signingSecret) app.use('/slack', slackRouter(slack, slack.signingSecret));
  // Before the JSON parser: each source's signature covers the raw body, and is the credential.
  app.use('/v1/events', eventsRouter(deps));
  // Before the JSON parser: model requests are larger than REST bodies, and these routes
  // take WORKER_TOKEN (or a job credential), never API_TOKEN.
  if (deps.internal) app.use('/internal/v1', internalRouter(deps.internal, deps.logger));
  // The depth is measured on the raw bytes, before JSON.parse and before any route or authentication.
  app.use(express.json({ limit: '256kb', verify: (_req, _res, body) => refuseDeepJson(body) }));
  app.use(wellFormedBody());
  app.use(dashboardSecurityHeaders());

  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  app.get('/readyz', async (_req, res) => {
    const ping = deps.redis.ping().then(
      () => true,
      () => false,
    );
    const timeout = new Promise<boolean>((r) => setTimeout(() => r(false), READY_TIMEOUT_MS).unref());
    // Detail, never a reason to be unready: an installation lacking an optional permission has
    // that one feature off (red-CI job logs without Actions: read), everything else works.
    const gaps = deps.permissionGaps().catch(() => undefined);
    const noGaps = new Promise<undefined>((r) => setTimeout(() => r(undefined), READY_TIMEOUT_MS).unref());
    const [ok, permissionGaps] = await Promise.all([Promise.race([ping, timeout]), Promise.race([gaps, noGaps])]);
    if (ok) res.json({ ok: true, redis: 'up', ...(permissionGaps?.length ? { github: { permissionGaps } } : {}) });
    else sendError(res, 503, 'unavailable', 'redis is unreachable', { redis: 'down' });
  });

  app.use('/metrics', metricsRouter({ ...deps, now }));

  // The bearer token for API clients, or a dashboard session (cookie + CSRF header).
  const sessions = new SessionStore(deps.redis, `${config.redisPrefix}:dash`, config.dashboard.sessionTtlS, now);
  const credentials = new SessionCredentials(config, deps.actions.policy);
  const auth = sessionAuth(config.apiToken, sessions);
  app.use('/v1/session/github', githubSignInRouter({ ...deps, sessions, policy: deps.actions.policy }));
  app.use(
    '/v1/session',
    sessionRouter({
      config: { ...config, apiToken: config.apiToken },
      sessions,
      credentials,
      demo: deps.demo ? DEMO_REFUSAL : undefined,
    }),
  );
  app.use(
    '/v1/operations',
    auth,
    dashboardRouter(deps, credentials),
    operationFilesRouter(deps),
    operationsRouter(deps),
  );
  app.get('/v1/events', auth, (req, res) => streamFeed(req, res, deps));
  app.use('/v1/operations', auth, deployRouter(deps));
  app.use('/v1/operations', auth, planRouter(deps));
  app.use('/v1/operations', auth, budgetRouter(deps));
  app.use('/v1/operations', auth, interdiffRouter(deps));
  app.get('/v1/operations/:id/verification', auth, dashboardVerification(deps));
  app.use('/v1/board', auth, boardRouter(deps));
  app.use('/v1/feature-requests', auth, featureRequestsRouter(deps));
  app.use('/v1/schedules', auth, schedulesRouter(deps));
  app.use('/v1/eval', auth, evalRunsRouter(deps));
  app.get('/v1/queue', auth, async (_req, res) => {
    res.json({ counts: await deps.queue.counts() });
  });
  app.get('/v1/queue/health', auth, async (_req, res) => {
    res.json(await dashboardQueueHealth(deps.queue, now()));
  });
  app.use(QUEUE_BOARD_PATH, queueBoardRouter(deps, auth, credentials, deps.actions.policy));

  if (deps.forge instanceof LocalForge) {
    const forge = deps.forge;
    app.get('/forge/:owner/:name/pulls/:number', auth, async (req, res) => {
      const repo = validate(RepoSlug, `${req.params.owner}/${req.params.name}`, 'repo');
      const number = validate(z.coerce.number().int().positive(), req.params.number, 'number');
      const pr = await forge.getPullRequest(repo, number);
      // A person following the PR link (Slack, the dashboard) gets the operation's Changes tab,
      // not the raw record; API clients asking for JSON still get it.
      if (req.accepts(['json', 'html']) === 'html') {
        const op = await operationOfBranch(deps.store, pr.head);
        if (op) return res.redirect(302, `/#/op/${op.id}?tab=changes`);
      }
      return res.json({ ...pr, diff: await forge.pullRequestDiff(repo, number) });
    });
  }

  app.use(express.static(DASHBOARD_DIR, { index: 'index.html', maxAge: 0 }));
  app.use((_req, res) => sendError(res, 404, 'not_found', 'no such route'));
  app.use(errorHandler(deps.logger));
  return app;
}
