import { BranchName, RepoSlug } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';
import { ScheduleName } from '@pullwright/policy';
import { Router } from 'express';
import { z } from 'zod';
import { availableRepo } from './available-repo.ts';
import { callerOf } from './caller-of.ts';
import { validate } from './validate.ts';

const User = z.string().min(1).max(200).optional();
const SyncBody = z.strictObject({ repo: RepoSlug.optional(), branch: BranchName.optional(), user: User });
const PauseBody = z.strictObject({ repo: RepoSlug, name: ScheduleName, paused: z.boolean(), user: User });

type Deps = Pick<Runtime, 'scheduledWork' | 'schedules' | 'inboundEvents' | 'actions' | 'forge' | 'config'>;

/**
 * `/v1/schedules`: the repositories' schedules and the event sources, with their last and
 * next runs (the dashboard's Schedules view); syncing a repository's `.pullwright.yml` and
 * pausing or resuming a schedule need the `request` role, as starting work does.
 */
export function schedulesRouter(deps: Deps): Router {
  const router = Router();

  router.get('/', async (_req, res) => {
    res.json({ schedules: await deps.schedules.list(), sources: await deps.inboundEvents.list() });
  });

  router.post('/sync', async (req, res) => {
    const body = validate(SyncBody, req.body, 'body');
    await deps.actions.authorize(undefined, callerOf(res, body.user), 'request');
    const repo = await availableRepo(deps, body.repo);
    res.json({ repo, schedules: await deps.scheduledWork.sync(repo, body.branch) });
  });

  router.post('/pause', async (req, res) => {
    const body = validate(PauseBody, req.body, 'body');
    await deps.actions.authorize(undefined, callerOf(res, body.user), 'request');
    res.json(await deps.schedules.setPaused(body.repo, body.name, body.paused));
  });

  return router;
}
