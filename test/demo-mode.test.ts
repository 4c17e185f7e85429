import { DEMO_REFUSAL, DEMO_REPO, DEMO_REQUEST, DEMO_REVISION_REFUSAL } from '@pullwright/pipeline';
import { eventually } from '@pullwright/testing/eventually';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, TEST_TOKEN, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

describe('demo mode (no model key): the demo runs, new requests are refused with the way out', () => {
  let sys: TestSystem;
  /** The seeded demo operation, once it waits for approval. */
  let demoId: string;
  beforeAll(async () => {
    sys = await startTestSystem({ demo: true });
    await createSampleRepo(sys.runtime.localForge!, DEMO_REPO);
    await createSampleRepo(sys.runtime.localForge!, 'acme/other');
  });
  afterAll(async () => sys?.stop());

  it('refuses a new REST request with a 409 that says how to add a model key or a replay file', async () => {
    const res = await sys.request('POST', '/v1/operations', {
      type: 'implement',
      repo: 'acme/other',
      description: 'Add a --dry-run flag',
    });
    expect(res.status).toBe(409);
    const { error } = (await res.json()) as { error: { message: string } };
    expect(error.message).toBe(DEMO_REFUSAL);
    expect(error.message).toMatch(/ANTHROPIC_API_KEY/);
    expect(error.message).toMatch(/REPLAY_FILE=/);
    expect(await sys.runtime.store.list()).toEqual([]);
  });

  it('tells the dashboard it is in demo mode (the banner), with the same way out', async () => {
    const res = await fetch(`${sys.api.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: TEST_TOKEN }),
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { demo: string | null }).demo).toBe(DEMO_REFUSAL);
  });

  it('still runs the seeded demo operation to its pull request', async () => {
    const { op } = await sys.runtime.store.createOnce('demo-sample-debug', DEMO_REQUEST);
    await sys.runtime.queue.add('run', { opId: op.id });
    const done = await waitForStatus(sys, op.id, ['awaiting_approval', 'failed'], 60_000);
    expect(done.status, done.error).toBe('awaiting_approval');
    demoId = op.id;
  });

  it('refuses Request changes and messages on the demo operation with a 409 that names the way out', async () => {
    const head = (await sys.runtime.store.get(demoId)).pullRequest!.headSha;
    for (const [path, body] of [
      ['revise', { instruction: 'Also trim dashes at both ends' }],
      ['messages', { text: 'Look at src/slugify.js' }],
    ] as const) {
      const res = await sys.request('POST', `/v1/operations/${demoId}/${path}`, body);
      expect(res.status, path).toBe(409);
      const { error } = (await res.json()) as { error: { message: string } };
      expect(error.message).toBe(DEMO_REVISION_REFUSAL);
      expect(error.message).toMatch(/ANTHROPIC_API_KEY/);
    }
    const op = await sys.runtime.store.get(demoId);
    expect(op.status).toBe('awaiting_approval');
    expect(op.pullRequest!.headSha).toBe(head);
    expect((await sys.runtime.events.list(demoId)).some((e) => e.type === 'revision')).toBe(false);
  });

  it('a revise job that got past the door fails the revision with the reason, never with the recording', async () => {
    const head = (await sys.runtime.store.get(demoId)).pullRequest!.headSha;
    await sys.runtime.queue.add('revise', {
      opId: demoId,
      requestId: 'demo-revise',
      feedback: [{ id: 1, kind: 'api', user: 'demo', body: 'Also trim dashes' }],
    });
    const failed = await eventually(
      'the revision fails',
      async () =>
        (await sys.runtime.events.list(demoId)).find(
          (e) => e.type === 'status' && typeof e.data.revisionFailed === 'string',
        ),
      { timeoutMs: 60_000 },
    );
    expect(failed.data.revisionFailed).toContain(DEMO_REVISION_REFUSAL);
    const op = await sys.runtime.store.get(demoId);
    expect(op.status).toBe('awaiting_approval');
    expect(op.pullRequest!.headSha).toBe(head);
  });

  it('a request that got past the door (another surface) fails with the reason, never with the recording', async () => {
    const op = await sys.runtime.store.create({
      ...DEMO_REQUEST,
      repo: 'acme/other',
      description: 'Add a --dry-run flag',
    });
    await sys.runtime.queue.add('run', { opId: op.id });
    const done = await waitForStatus(sys, op.id, ['awaiting_approval', 'failed'], 60_000);
    expect(done.status).toBe('failed');
    expect(done.error).toBe(DEMO_REFUSAL);
    expect(done.pullRequest).toBeUndefined();
  });
});
