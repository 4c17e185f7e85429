import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Logger } from '@pullwright/core';
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';

/** An id a client or proxy sent is kept (so its logs and ours join up) when it looks like one. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;
/** Probes and scrapes every few seconds would drown the lines people read. */
const QUIET = new Set(['/healthz', '/readyz', '/metrics']);

/** The path without its query: a query can hold an OAuth code or state, or a token a client put there. */
function pathOf(url: string | undefined): string {
  return (url ?? '/').split('?')[0] ?? '/';
}

/** Express rewrites `url` inside mounted routers; the line names what the client asked for. */
function requested(req: IncomingMessage): string {
  return pathOf((req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url);
}

/**
 * One access-log line per request (pino-http): method, path without the query, status,
 * duration and a request id, which is also sent back in `X-Request-Id` and taken from the
 * request when a proxy set one. Headers are not logged: they carry cookies and tokens.
 */
export function accessLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger: logger.child({ component: 'http' }),
    genReqId(req, res) {
      const sent = req.headers['x-request-id'];
      const id = typeof sent === 'string' && CLIENT_REQUEST_ID.test(sent) ? sent : randomUUID();
      res.setHeader('x-request-id', id);
      return id;
    },
    autoLogging: { ignore: (req: IncomingMessage) => QUIET.has(pathOf(req.url)) },
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        path: pathOf(req.url),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, err) =>
      err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    customSuccessMessage: (req, res) => `${req.method} ${requested(req)} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${requested(req)} ${res.statusCode}`,
  }) as unknown as RequestHandler;
}
