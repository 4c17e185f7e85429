import { verifySlackSignature } from '@pullwright/slack';
import express, { type Request, type RequestHandler, Router } from 'express';
import { sendError } from './http-errors.ts';
import { refuseDeepJson } from './json-depth.ts';
import { SlackInbound } from './slack-inbound.ts';
import type { SlackServices } from './slack-services.ts';

function rawBody(req: Request): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

function form(req: Request): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(rawBody(req).toString('utf8')));
}

/**
 * `/slack/commands`, `/slack/interactions`, `/slack/events`. Mounted before the JSON
 * parser: the signature covers the exact bytes, so these routes read the raw body and
 * verify it before anything is parsed or written.
 */
export function slackRouter(slack: SlackServices, signingSecret: string): Router {
  const { logger } = slack.deps;
  const inbound = new SlackInbound(slack);
  const router = Router();
  const raw = express.raw({ type: () => true, limit: '1mb' });
  const verified: RequestHandler = (req, res, next) => {
    try {
      verifySlackSignature({
        signingSecret,
        timestamp: req.get('x-slack-request-timestamp'),
        signature: req.get('x-slack-signature'),
        rawBody: rawBody(req),
      });
    } catch (err) {
      logger.warn({ path: req.path, reason: (err as Error).message }, 'slack request refused');
      return sendError(res, 401, 'unauthorized', 'invalid slack signature');
    }
    next();
  };

  router.post('/commands', raw, verified, async (req, res) => {
    res.json(await inbound.command(form(req)));
  });

  router.post('/interactions', raw, verified, async (req, res) => {
    const { payload } = form(req);
    if (payload) refuseDeepJson(payload, 'payload');
    const answer = await inbound.interaction(parseJson(payload));
    if (answer) {
      res.json(answer);
      return;
    }
    res.status(200).end();
  });

  router.post('/events', raw, verified, async (req, res) => {
    refuseDeepJson(rawBody(req));
    const challenge = await inbound.event(parseJson(rawBody(req).toString('utf8')));
    if (challenge) return res.json(challenge);
    return res.status(200).end();
  });

  return router;
}

function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
