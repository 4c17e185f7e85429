import type { OperationStatus } from '@pullwright/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';

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
    const deadline = Date.now() + 45_000;
    let statuses: OperationStatus[] = [];
    while (Date.now() < deadline) {
      statuses = (await Promise.all(ids.map((id) => sys.runtime.store.get(id)))).map((o) => o.status);
      if (statuses.every((s) => s === 'awaiting_approval' || s === 'failed')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(statuses).toEqual(['awaiting_approval', 'awaiting_approval', 'awaiting_approval']);
  });
});
