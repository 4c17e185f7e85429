import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { TRACER_NAME } from '@pullwright/core';
import type { RequestHandler } from 'express';

/**
 * A server span per request, active while the request is handled: what it enqueues (BullMQ
 * carries the context to the worker) and every forge call nest under it. Named after the
 * matched route once known (`POST /v1/operations`), never after ids or the query.
 */
export function requestSpan(): RequestHandler {
  const tracer = trace.getTracer(TRACER_NAME);
  return (req, res, next) => {
    tracer.startActiveSpan(
      `${req.method}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } },
      (span) => {
        res.once('finish', () => {
          const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}`.replace(/(.)\/$/, '$1') : undefined;
          if (route) span.updateName(`${req.method} ${route}`);
          span.setAttributes({
            'http.response.status_code': res.statusCode,
            ...(route ? { 'http.route': route } : {}),
          });
          if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        });
        next();
      },
    );
  };
}
