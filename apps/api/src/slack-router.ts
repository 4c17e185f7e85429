import {
  answerWithin,
  BlockActionsPayload,
  EventsEnvelope,
  REVISE_BLOCK,
  type SlackResponse,
  SlashCommandForm,
  ViewSubmissionPayload,
  verifySlackSignature,
} from '@pullwright/slack';
import express, { type Request, type RequestHandler, Router } from 'express';
import { sendError } from './http-errors.ts';
import type { SlackServices } from './slack-services.ts';
import { validate } from './validate.ts';
import { textProblem } from './well-formed-body.ts';

/** Slack waits 3 s; answer well before, whatever the store or the forge are doing. */
const DEADLINE_MS = 2500;

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
export function slackRouter(slack: SlackServices): Router {
  const { client, logger } = slack.deps;
  const router = Router();
  const raw = express.raw({ type: () => true, limit: '1mb' });
  const verified: RequestHandler = (req, res, next) => {
    try {
      verifySlackSignature({
        signingSecret: slack.signingSecret,
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
  const failed = (what: string) => (err: unknown) => logger.error({ err, what }, 'slack request failed');

  router.post('/commands', raw, verified, async (req, res) => {
    const command = validate(SlashCommandForm, form(req), 'body');
    // Refused here like a REST description: such text breaks the operation later (Redis, git).
    const problem = textProblem(command.text);
    if (problem) {
      res.json({ response_type: 'ephemeral', text: `The request text ${problem}.` });
      return;
    }
    const sorry: SlackResponse = {
      response_type: 'ephemeral',
      text: 'Pullwright could not take this request right now; please try again in a minute.',
    };
    const working: SlackResponse = { response_type: 'ephemeral', text: 'Working on it…' };
    const work = slack.commands.handle(command).catch((err: unknown) => {
      failed('command')(err);
      return sorry;
    });
    const answer = await answerWithin(
      work,
      DEADLINE_MS,
      working,
      (late) => client.respond(command.response_url, { ...late, replace_original: true }),
      failed('late command answer'),
    );
    res.json(client.scrub(answer));
  });

  router.post('/interactions', raw, verified, async (req, res) => {
    const body = parseJson(form(req).payload);
    const view = ViewSubmissionPayload.safeParse(body);
    if (view.success) {
      // The answer is the modal's fate: closed, or an error under the text box (within 3 s).
      const answer = await answerWithin(
        slack.interactions.handleView(view.data).catch((err: unknown) => {
          failed('view submission')(err);
          return {
            response_action: 'errors' as const,
            errors: { [REVISE_BLOCK]: 'Pullwright could not take this; try again.' },
          };
        }),
        DEADLINE_MS,
        {},
        async () => undefined,
        failed('view submission'),
      );
      res.json(client.scrub(answer));
      return;
    }
    const payload = BlockActionsPayload.safeParse(body);
    // Other interaction types (shortcuts, other modals) are acknowledged and ignored.
    if (payload.success) {
      await answerWithin(
        slack.interactions.handle(payload.data).catch((err: unknown) => {
          failed('interaction')(err);
          return 'failed' as const;
        }),
        DEADLINE_MS,
        'failed',
        async () => undefined,
        failed('interaction'),
      );
    }
    res.status(200).end();
  });

  router.post('/events', raw, verified, async (req, res) => {
    const envelope = validate(EventsEnvelope, parseJson(rawBody(req).toString('utf8')), 'body');
    if (envelope.type === 'url_verification') return res.json({ challenge: envelope.challenge });
    await answerWithin(
      slack.events.handle(envelope).catch((err: unknown) => {
        failed('event')(err);
        return { kind: 'ignored' as const, why: 'error' };
      }),
      DEADLINE_MS,
      { kind: 'ignored', why: 'late' },
      async () => undefined,
      failed('event'),
    );
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
