import { afterAll, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

describe('SANDBOX=none', () => {
  let sys: TestSystem | undefined;
  afterAll(() => sys?.stop());

  it('runs, and every view of the operation says its code ran without a sandbox', async () => {
    sys = await startTestSystem({ env: { SANDBOX: 'none' } });
    expect(sys.runtime.runner.sandboxed).toBe(false);
    const repo = await createSampleRepo(sys.runtime.localForge!);
    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    const { id } = (await res.json()) as { id: string };
    const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    expect(op.error).toBeUndefined();
    expect(op.sandbox).toEqual({ runner: 'process', sandboxed: false });
    const marked = (await sys.runtime.events.list(id)).find((e) => e.type === 'sandbox');
    expect(marked?.data).toMatchObject({ sandboxed: false, warning: expect.stringContaining('without a sandbox') });
    const pr = await sys.runtime.localForge!.getPullRequest(repo, op.pullRequest!.number);
    expect(pr.body).toContain('ran without a sandbox (`SANDBOX=none`)');
  });
});
