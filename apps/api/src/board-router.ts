import { RepoSlug } from '@pullwright/core';
import { Router } from 'express';
import { z } from 'zod';
import { type BoardDeps, boardSnapshot } from './board-snapshot.ts';
import { validate } from './validate.ts';

const BoardQuery = z.object({ repo: RepoSlug.optional() });

/** `GET /v1/board[?repo=owner/name]`: locks held, operations waiting on them, open branches and overlaps. */
export function boardRouter(deps: BoardDeps): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const query = validate(BoardQuery, req.query, 'query');
    res.json(await boardSnapshot(deps, query.repo ? { repo: query.repo } : {}));
  });
  return router;
}
