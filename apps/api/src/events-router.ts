import type { Runtime } from '@pullwright/pipeline';
import express, { Router } from 'express';
import { z } from 'zod';
import { validate } from './validate.ts';

const SourceName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'must be a configured source name');

/**
 * `POST /v1/events/<source>`: signed deliveries from the sources EVENT_SOURCES configures.
 * The signature is the credential (no bearer token), so the raw body is read here, before
 * the JSON parser: 202 with the operation for a new event, 200 with the same one for an
 * event id seen before, 200 `ignored` for a delivery that is not an event, 401 naming the
 * header for a missing or wrong signature, 404 for a source not configured.
 */
export function eventsRouter(deps: Pick<Runtime, 'inboundEvents'>): Router {
  const router = Router();
  router.post('/:source', express.raw({ type: () => true, limit: '512kb' }), async (req, res) => {
    const source = validate(SourceName, req.params.source, 'source');
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const outcome = await deps.inboundEvents.receive(source, (name) => req.get(name), raw);
    if ('ignored' in outcome) return res.json({ ignored: outcome.ignored });
    return res
      .status(outcome.created ? 202 : 200)
      .json({ id: outcome.op.id, status: outcome.op.status, created: outcome.created });
  });
  return router;
}
