import { isPullwrightError } from '@pullwright/core';
import type { OperationActions } from '@pullwright/pipeline';
import type { OperationStore } from '@pullwright/queue';
import { z } from 'zod';
import { GitHubRepository } from './github-payload-shapes.ts';
import { operationForBranch } from './operation-for-branch.ts';

/** Conclusions that are a red check (a cancelled or skipped run is not a finding). */
const RED = new Set(['failure', 'timed_out', 'startup_failure']);

/** What a completed CI run says, whichever event reported it. */
interface Completed {
  action: string;
  repo: string;
  branch: string | null;
  headSha: string;
  conclusion: string | null;
  url?: string | undefined;
}

type CiEvent = 'check_suite' | 'check_run' | 'workflow_run';

/** What every CI event carries besides its run. */
const CiEventBase = z.object({ action: z.string(), repository: GitHubRepository });

/** Each event's payload, read into the one shape `#completed` judges. */
const COMPLETED: Record<CiEvent, z.ZodType<Completed>> = {
  check_suite: CiEventBase.extend({
    check_suite: z.object({
      head_branch: z.string().nullable(),
      head_sha: z.string(),
      conclusion: z.string().nullable(),
      url: z.string().optional(),
    }),
  }).transform(({ action, repository, check_suite: s }) => ({
    action,
    repo: repository.full_name,
    branch: s.head_branch,
    headSha: s.head_sha,
    conclusion: s.conclusion,
    url: s.url,
  })),
  check_run: CiEventBase.extend({
    check_run: z.object({
      head_sha: z.string(),
      conclusion: z.string().nullable(),
      html_url: z.string().nullish(),
      check_suite: z.object({ head_branch: z.string().nullable() }),
    }),
  }).transform(({ action, repository, check_run: r }) => ({
    action,
    repo: repository.full_name,
    branch: r.check_suite.head_branch,
    headSha: r.head_sha,
    conclusion: r.conclusion,
    url: r.html_url ?? undefined,
  })),
  workflow_run: CiEventBase.extend({
    workflow_run: z.object({
      head_branch: z.string().nullable(),
      head_sha: z.string(),
      conclusion: z.string().nullable(),
      html_url: z.string(),
    }),
  }).transform(({ action, repository, workflow_run: w }) => ({
    action,
    repo: repository.full_name,
    branch: w.head_branch,
    headSha: w.head_sha,
    conclusion: w.conclusion,
    url: w.html_url,
  })),
};

interface GitHubCiEventsDeps {
  store: OperationStore;
  actions: OperationActions;
}

/**
 * Red CI on the head of an operation's PR: `check_suite`, `check_run` and `workflow_run`
 * completed with a failure. Every one of them for the same head becomes the one delayed look
 * (`OperationActions.noteFailedChecks`); the worker decides after the settle delay.
 */
export class GitHubCiEvents {
  constructor(private readonly deps: GitHubCiEventsDeps) {}

  handle(event: CiEvent, payload: unknown): Promise<string> {
    return this.#completed(COMPLETED[event].parse(payload));
  }

  async #completed(c: Completed): Promise<string> {
    if (c.action !== 'completed') return `ignored: ${c.action}`;
    if (!RED.has(c.conclusion ?? '')) return `ignored: concluded ${c.conclusion ?? 'without a conclusion'}`;
    if (!c.branch) return 'ignored: not on a branch';
    const op = await operationForBranch(this.deps.store, c.repo, c.branch);
    if (!op?.pullRequest) return 'ignored: not a Pullwright pull request';
    if (op.pullRequest.headSha !== c.headSha) return 'ignored: not the head of the pull request';
    if (op.status !== 'awaiting_approval' && op.status !== 'approved') return `ignored: operation is ${op.status}`;
    try {
      await this.deps.actions.noteFailedChecks(op.id, c.headSha, c.url);
    } catch (err) {
      if (isPullwrightError(err) && err.code === 'forbidden') return `ignored: ${err.message}`;
      throw err;
    }
    return `red CI noted on ${c.headSha.slice(0, 12)}; looked at once the checks settle`;
  }
}
