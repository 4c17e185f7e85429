import { isPullwrightError } from '@pullwright/core';
import type { OperationActions } from '@pullwright/pipeline';
import type { OperationStore } from '@pullwright/queue';
import { z } from 'zod';
import { GitHubRepository } from './github-payload-shapes.ts';
import { operationForBranch } from './operation-for-branch.ts';

/** Conclusions that are a red check (a cancelled or skipped run is not a finding). */
const RED = new Set(['failure', 'timed_out', 'startup_failure']);

const CheckSuiteEvent = z.object({
  action: z.string(),
  check_suite: z.object({
    head_branch: z.string().nullable(),
    head_sha: z.string(),
    conclusion: z.string().nullable(),
    url: z.string().optional(),
  }),
  repository: GitHubRepository,
});
const CheckRunEvent = z.object({
  action: z.string(),
  check_run: z.object({
    head_sha: z.string(),
    conclusion: z.string().nullable(),
    html_url: z.string().nullish(),
    check_suite: z.object({ head_branch: z.string().nullable() }),
  }),
  repository: GitHubRepository,
});
const WorkflowRunEvent = z.object({
  action: z.string(),
  workflow_run: z.object({
    head_branch: z.string().nullable(),
    head_sha: z.string(),
    conclusion: z.string().nullable(),
    html_url: z.string(),
  }),
  repository: GitHubRepository,
});

interface Completed {
  action: string;
  repo: string;
  branch: string | null;
  headSha: string;
  conclusion: string | null;
  url?: string | undefined;
}

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

  handle(event: 'check_suite' | 'check_run' | 'workflow_run', payload: unknown): Promise<string> {
    switch (event) {
      case 'check_suite': {
        const e = CheckSuiteEvent.parse(payload);
        const s = e.check_suite;
        return this.#completed({
          ...e,
          repo: e.repository.full_name,
          branch: s.head_branch,
          headSha: s.head_sha,
          conclusion: s.conclusion,
          url: s.url,
        });
      }
      case 'check_run': {
        const e = CheckRunEvent.parse(payload);
        const r = e.check_run;
        return this.#completed({
          action: e.action,
          repo: e.repository.full_name,
          branch: r.check_suite.head_branch,
          headSha: r.head_sha,
          conclusion: r.conclusion,
          url: r.html_url ?? undefined,
        });
      }
      case 'workflow_run': {
        const e = WorkflowRunEvent.parse(payload);
        const w = e.workflow_run;
        return this.#completed({
          action: e.action,
          repo: e.repository.full_name,
          branch: w.head_branch,
          headSha: w.head_sha,
          conclusion: w.conclusion,
          url: w.html_url,
        });
      }
    }
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
