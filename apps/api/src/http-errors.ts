import {
  errorOutcome,
  type FieldIssue,
  isPullwrightError,
  isRedisUnavailable,
  type Logger,
  withoutHostPaths,
} from '@pullwright/core';
import type { ErrorRequestHandler, Response } from 'express';

export function sendError(
  res: Response,
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
) {
  res.status(status).json({ error: { code, message, ...extra } });
}

/**
 * One mapping from error to response: typed errors become 4xx with their fields, anything
 * else a 500 with no detail (the log has it). Never a stack trace on the wire.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    if (isPullwrightError(err)) {
      const outcome = errorOutcome(err.code);
      const status = outcome.kind === 'http' ? outcome.status : outcome.kind === 'retry' ? 503 : 422;
      const extra: Record<string, unknown> = {};
      if (err.code === 'validation_failed' && Array.isArray(err.context.issues))
        extra.fields = err.context.issues as FieldIssue[];
      if ('from' in err.context) extra.status = err.context.from;
      if ('status' in err.context) extra.status = err.context.status;
      return sendError(res, status, err.code, withoutHostPaths(err.message), extra);
    }
    const e = err as { type?: string; status?: number; message?: string };
    if (e.type === 'entity.parse.failed') {
      return sendError(res, 400, 'validation_failed', 'request body is not valid JSON', {
        fields: [{ field: 'body', reason: 'invalid JSON' }],
      });
    }
    if (e.type === 'entity.too.large') return sendError(res, 413, 'too_large', 'request body is too large');
    const body = bodyError(err);
    if (body)
      return sendError(res, body.status, body.code, body.message, {
        fields: [{ field: body.field, reason: body.message }],
      });
    if (isRedisUnavailable(err))
      return sendError(res, 503, 'unavailable', 'the operation store is unavailable; retry shortly');
    logger.error({ err }, 'unhandled error');
    return sendError(res, 500, 'internal', 'internal error');
  };
}

/**
 * What the body parsers (express.json, express.raw) throw before a route runs, as a client
 * error: an encoding we do not decode is 415 (gzip, deflate and br are decoded), a body that
 * does not decompress or a charset we cannot read is 400. None of it reaches a handler.
 */
function bodyError(err: unknown): { status: number; code: string; field: string; message: string } | undefined {
  const e = err as { type?: string; status?: number; expose?: boolean; message?: string };
  if (e.type === 'encoding.unsupported') {
    return {
      status: 415,
      code: 'unsupported_media_type',
      field: 'Content-Encoding',
      message: `${e.message}: send it uncompressed or as gzip, deflate or br`,
    };
  }
  if (e.type === 'charset.unsupported') {
    return { status: 400, code: 'validation_failed', field: 'Content-Type', message: `${e.message}: send UTF-8` };
  }
  // zlib and brotli stream errors carry no type; body-parser marks them 400.
  if (e.status === 400 && e.type === undefined) {
    return {
      status: 400,
      code: 'validation_failed',
      field: 'body',
      message: 'request body does not decompress as its Content-Encoding says',
    };
  }
  // Any other client error of the body reader (an aborted or mis-sized request).
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
    return { status: e.status, code: 'bad_request', field: 'body', message: e.message ?? 'bad request body' };
  }
  return undefined;
}
