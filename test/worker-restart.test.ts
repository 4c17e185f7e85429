import { afterEach, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

describe('worker restart', () => {
  let sys: TestSystem;
  afterEach(async () => sys?.stop());

  it('processes every job still queued after a worker is stopped and a new one starts', async () => {
    sys = await startTestSystem({ worker: false });
    const repos = await Promise.all(
      ['acme/a', 'acme/b', 'acme/c'].map((r) => createSampleRepo(sys.runtime.localForge!, r)),
    );
    // A worker that starts and stops before taking anything: the jobs must survive it.
    await (await sys.startWorker()).close();
    const ids: string[] = [];
    for (const repo of repos) {
      const res = await sys.request('POST', '/v1/operations', { type: 'debug', repo, description: `fix ${repo}` });
      ids.push(((await res.json()) as { id: string }).id);
    }
    const queued = await Promise.all(ids.map((id) => sys.runtime.store.get(id)));
    expect(queued.map((o) => o.status)).toEqual(['queued', 'queued', 'queued']);

    await sys.startWorker();
    const ops = await Promise.all(ids.map((id) => waitForStatus(sys, id, ['awaiting_approval', 'failed'])));
    expect(ops.map((o) => o.status)).toEqual(['awaiting_approval', 'awaiting_approval', 'awaiting_approval']);
  });
});
