import { Webhooks } from '@octokit/webhooks';
import type { Logger } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';
import express, { type Router } from 'express';
import { ZodError } from 'zod';
import { GitHubEvents, type GitHubEventsDeps } from './github-events.ts';
import { sendError } from './http-errors.ts';
import { refuseDeepJson } from './json-depth.ts';
import { ReplayGuard } from './replay-guard.ts';

/** GitHub lets anyone with access redeliver a delivery for 3 days; a replay inside that window is a no-op. */
const DELIVERY_TTL_S = 3 * 24 * 3600;
/** GitHub caps webhook payloads at 25 MB. */
const MAX_BODY = '25mb';
const DELIVERY_ID = /^[A-Za-z0-9_-]{1,100}$/;

interface GitHubWebhooksDeps extends GitHubEventsDeps {
  redis: Runtime['redis'];
  secret: string;
}

/**
 * `POST /github/webhooks`. The signature is checked over the raw bytes GitHub signed (so
 * this router reads the body itself and must sit before any JSON parser); a missing or
 * wrong signature is a 401 and nothing happens. Each delivery is handled once, by its
 * delivery id and by the hash of the signed body (the delivery id is not signed: a captured
 * delivery re-sent under a new id is still the same bytes): GitHub retries, the redeliver
 * button and a replay do not approve, revise or start work twice. Duplicates are answered 200 and logged.
 */
export function githubWebhooksRouter(deps: GitHubWebhooksDeps): Router {
  const webhooks = new Webhooks({ secret: deps.secret });
  const events = new GitHubEvents(deps);
  const log: Logger = deps.logger.child({ route: 'github-webhooks' });
  const replays = new ReplayGuard(deps.redis, deps.keyPrefix);
  const router = express.Router();

  router.post('/', express.raw({ type: () => true, limit: MAX_BODY }), async (req, res, next) => {
    const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
    const signature = req.get('x-hub-signature-256');
    const delivery = req.get('x-github-delivery') ?? '';
    const event = req.get('x-github-event') ?? '';
    if (!signature) {
      log.warn({ delivery }, 'webhook without a signature refused');
      return sendError(res, 401, 'unauthorized', 'X-Hub-Signature-256 is required');
    }
    const valid = body.length > 0 && (await webhooks.verify(body, signature).catch(() => false));
    if (!valid) {
      log.warn({ delivery }, 'webhook with a bad signature refused');
      return sendError(res, 401, 'unauthorized', 'signature does not match the payload');
    }
    if (!DELIVERY_ID.test(delivery) || !event) {
      return sendError(res, 400, 'validation_failed', 'X-GitHub-Delivery and X-GitHub-Event are required');
    }
    refuseDeepJson(body);
    const key = `${deps.keyPrefix}:github:delivery:${delivery}`;
    const signed = [body];
    try {
      const freshBody = await replays.first('github', signed, DELIVERY_TTL_S);
      const freshId = (await deps.redis.set(key, '1', 'EX', DELIVERY_TTL_S, 'NX')) === 'OK';
      if (!freshBody || !freshId) {
        log.info({ delivery, event, sameBody: !freshBody, sameId: !freshId }, 'duplicate webhook delivery ignored');
        return res.status(200).json({ delivery, outcome: 'duplicate delivery: already handled' });
      }
      const payload = JSON.parse(body) as { action?: string };
      const outcome = await events.handle(event, delivery, payload);
      log.info({ delivery, event, action: payload.action, outcome }, 'webhook handled');
      return res.status(200).json({ delivery, outcome });
    } catch (err) {
      // Not handled after all: let GitHub's retry (or a redelivery) try again.
      await deps.redis.del(key).catch(() => undefined);
      await replays.forget('github', signed).catch(() => undefined);
      if (err instanceof SyntaxError) return sendError(res, 400, 'validation_failed', 'payload is not JSON');
      if (err instanceof ZodError) {
        log.warn({ delivery, event }, 'webhook payload has an unexpected shape');
        return sendError(res, 400, 'validation_failed', `unexpected ${event} payload`);
      }
      return next(err);
    }
  });
  return router;
}
