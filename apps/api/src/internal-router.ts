import { type Logger, RepoSlug } from '@pullwright/core';
import {
  type GatewayProtocol,
  type GatewaySink,
  gatewayErrorBody,
  type InternalServices,
  upstreamAnswer,
} from '@pullwright/pipeline';
import express, { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { bearerAuth } from './bearer-auth.ts';
import { sendError } from './http-errors.ts';
import { validate } from './validate.ts';

/** A conversation with file contents and check output runs to a few MB; the REST API's 256 kB would cut it. */
const MODEL_BODY_LIMIT = '16mb';

const TokenRequest = z.strictObject({
  repo: RepoSlug,
  /** The job's token holder: `<opId>/<job>` or `prefetch:<opId>`. */
  holder: z.string().min(1).max(200),
});

/** What the gateway reads of a model request; the rest passes to the provider as the worker's SDK wrote it. */
const ModelRequest = z.looseObject({
  model: z.string().min(1, 'must name the model'),
  stream: z.boolean().optional(),
});

/**
 * `/internal/v1/*`, what workers call on the API and nothing else does: the credential broker
 * (authenticated with WORKER_TOKEN) and the model gateway (authenticated with a per-job
 * credential derived from it, sent as the SDK's API key). Neither token opens the REST API,
 * and the API token opens neither of these.
 */
export function internalRouter(internal: InternalServices, logger: Logger): Router {
  const router = Router();
  const tokens = Router();
  tokens.use(bearerAuth(internal.workerToken), express.json({ limit: '16kb' }));
  tokens.post('/', async (req, res) => {
    const { broker } = internal;
    if (!broker) return sendError(res, 404, 'not_found', 'this API has no GitHub App: there are no tokens to broker');
    const { repo, holder } = validate(TokenRequest, req.body, 'token request');
    res.json(await broker.mint(repo, holder));
  });
  tokens.delete('/', async (req, res) => {
    const { broker } = internal;
    if (!broker) return sendError(res, 404, 'not_found', 'this API has no GitHub App: there are no tokens to broker');
    const { repo, holder } = validate(TokenRequest, req.body, 'token request');
    await broker.revoke(repo, holder);
    res.status(204).end();
  });
  router.use('/github/tokens', tokens);

  const model = express.json({ limit: MODEL_BODY_LIMIT });
  router.post('/model/anthropic/v1/messages', model, (req, res) =>
    gatewayCall('anthropic', internal, req, res, logger),
  );
  router.post('/model/openai/chat/completions', model, (req, res) => gatewayCall('openai', internal, req, res, logger));
  return router;
}

/** The SDKs' own ways of sending the key: Anthropic `x-api-key`, OpenAI `Authorization: Bearer`. */
function credentialOf(req: Request): string {
  const bearer = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1];
  return (req.get('x-api-key') ?? bearer ?? '').trim();
}

async function gatewayCall(
  protocol: GatewayProtocol,
  internal: InternalServices,
  req: Request,
  res: Response,
  logger: Logger,
): Promise<void> {
  const { gateway } = internal;
  const refuse = (status: number, type: string, message: string) => {
    res.status(status).json(gatewayErrorBody(protocol, type, message));
  };
  const subject = gateway.subjectOf(credentialOf(req));
  if (!subject) return refuse(401, 'authentication_error', 'missing or invalid job credential');
  const parsed = ModelRequest.safeParse(req.body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return refuse(400, 'invalid_request_error', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  const body = parsed.data;
  const refusal = await gateway.refusal(subject, body.model);
  if (refusal) return refuse(refusal.status, refusal.type, refusal.message);

  // The worker hung up: the provider call stops too.
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort(new Error('the worker closed the connection'));
  });
  const sink: GatewaySink = {
    json: (answer) => {
      res.json(answer);
    },
    event: (name, data) => {
      if (!res.headersSent) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      }
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      res.write(`${name ? `event: ${name}\n` : ''}data: ${text}\n\n`);
    },
  };
  try {
    await gateway.forward(protocol, subject, body, sink, abort.signal);
    if (!res.writableEnded) res.end();
  } catch (err) {
    const answer = upstreamAnswer(err, protocol);
    logger.warn({ subject, protocol, status: answer.status }, 'model call through the gateway failed');
    if (!res.headersSent) {
      res.status(answer.status).set(answer.headers).json(answer.body);
      return;
    }
    // Mid-stream: the protocol's error event, which the worker's SDK raises (and its provider retries).
    sink.event(protocol === 'anthropic' ? 'error' : undefined, answer.body);
    res.end();
  }
}
