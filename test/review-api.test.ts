import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';

type Problem = { error: { code: string; message: string; fields?: { field: string; reason: string }[] } };

describe('REST: revise, interdiff and confirmPlan refuse what they cannot do, naming why', () => {
  let sys: TestSystem;
  let repo: string;
  let queued: string;
  beforeAll(async () => {
    // No worker: the operation stays queued, without a pull request.
    sys = await startTestSystem({ worker: false });
    repo = await createSampleRepo(sys.runtime.localForge!);
    const res = await sys.request('POST', '/v1/operations', {
      type: 'fix',
      repo,
      description: 'slugify keeps spaces',
      confirmPlan: true,
    });
    expect(res.status).toBe(202);
    queued = ((await res.json()) as { id: string }).id;
  });
  afterAll(async () => sys?.stop());

  const call = async (method: string, url: string, body?: unknown) => {
    const res = await sys.request(method, url, body);
    return { status: res.status, body: (await res.json()) as Problem };
  };

  it('records confirmPlan from the request', async () => {
    expect((await sys.runtime.store.get(queued)).confirmPlan).toBe(true);
    const bad = await call('POST', '/v1/operations', { type: 'fix', repo, description: 'x', confirmPlan: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields?.[0]?.field).toBe('confirmPlan');
  });

  it('revise: an empty instruction is a 400 naming the field; before a PR exists it is a 409 saying what to do instead', async () => {
    const empty = await call('POST', `/v1/operations/${queued}/revise`, { instruction: '  ' });
    expect(empty.status).toBe(400);
    expect(empty.body.error.fields).toEqual([{ field: 'instruction', reason: 'must not be empty' }]);
    const early = await call('POST', `/v1/operations/${queued}/revise`, { instruction: 'Add docs' });
    expect(early.status).toBe(409);
    expect(early.body.error.message).toBe(`${queued} has no pull request yet; send the model a message instead`);
    // Only the run job (it waits prioritized): the refused revision enqueued nothing.
    expect(await sys.runtime.queue.counts()).toMatchObject({ prioritized: 1 });
  });

  it('interdiff: a bad sha and an operation without a PR are 400s naming the field', async () => {
    const sha = await call('GET', `/v1/operations/${queued}/interdiff?from=HEAD~1`);
    expect(sha.status).toBe(400);
    expect(sha.body.error.fields).toEqual([{ field: 'from', reason: 'must be a commit sha' }]);
    const none = await call('GET', `/v1/operations/${queued}/interdiff`);
    expect(none.status).toBe(400);
    expect(none.body.error.fields).toEqual([{ field: 'id', reason: 'the operation has no pull request to compare' }]);
  });
});
