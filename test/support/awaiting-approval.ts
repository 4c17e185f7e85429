import type { Requester } from '@pullwright/core';
import type { TestSystem } from './test-runtime.ts';

/** An operation waiting for approval at `headSha` (with its risk recorded), without running a worker. */
export async function awaitingApproval(
  sys: TestSystem,
  repo: string,
  headSha: string,
  requester: Requester = { source: 'api', user: 'test' },
): Promise<string> {
  const { store } = sys.runtime;
  const op = await store.create({ type: 'debug', repo, baseBranch: 'main', description: 'fixture', requester });
  await store.transition(op.id, 'running');
  await store.transition(op.id, 'awaiting_approval', {
    pullRequest: { number: 1, url: 'http://127.0.0.1/pr/1', headSha },
    headSha,
    // What the pipeline records when it opens the PR: the risk of that head.
    risk: {
      level: 'low',
      reasons: [],
      stats: { files: 1, additions: 1, deletions: 1, kinds: { source: 1 } },
      headSha,
    },
  });
  return op.id;
}
