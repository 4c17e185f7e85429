import { EvalRunStore } from '@pullwright/eval';
import type { Runtime } from '@pullwright/pipeline';
import { Router } from 'express';
import { z } from 'zod';
import { sendError } from './http-errors.ts';
import { validate } from './validate.ts';

const RunsQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }).strict();

/**
 * `GET /v1/eval/runs[?limit=50]`: the evaluation runs `pullwright eval run` stored, newest first
 * (the dashboard's trend); `GET /v1/eval/runs/:run`: one run's report.
 */
export function evalRunsRouter(deps: Pick<Runtime, 'redis' | 'keys'>): Router {
  const store = new EvalRunStore(deps.redis, deps.keys);
  const router = Router();
  router.get('/runs', async (req, res) => {
    const { limit } = validate(RunsQuery, req.query, 'query');
    res.json({ runs: await store.list(limit) });
  });
  router.get('/runs/:run', async (req, res) => {
    const report = await store.get(req.params.run);
    if (!report) return sendError(res, 404, 'not_found', `evaluation run ${req.params.run} not found`);
    return res.json(report);
  });
  return router;
}
