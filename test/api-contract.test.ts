import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';

interface ErrorBody {
  error: { code: string; message: string; fields?: { field: string; reason: string }[]; status?: string };
}

describe('REST API contract', () => {
  let sys: TestSystem;
  let repo: string;
  // No worker: operations stay queued, so state errors are deterministic.
  beforeAll(async () => {
    sys = await startTestSystem({ worker: false });
    repo = await createSampleRepo(sys.runtime.localForge!);
  });
  afterAll(async () => sys?.stop());

  it('401 without a token or with a wrong one, and never echoes the token', async () => {
    const WRONG_TOKEN = 'wrong-token-value';
    const none = await fetch(`${sys.api.url}/v1/operations`);
    expect(none.status).toBe(401);
    const wrong = await sys.request('GET', '/v1/operations', undefined, { authorization: `Bearer ${WRONG_TOKEN}` });
    expect(wrong.status).toBe(401);
    const text = await wrong.text();
    expect(text).not.toContain(WRONG_TOKEN);
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('400 names every bad field and why', async () => {
    const res = await sys.request('POST', '/v1/operations', {
      type: 'deploy',
      repo: '../etc',
      description: '',
      extra: 1,
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    const fields = Object.fromEntries(body.error.fields!.map((f) => [f.field, f.reason]));
    expect(Object.keys(fields).sort()).toEqual(['description', 'extra', 'repo', 'type']);
    expect(fields.extra).toBe('unknown field');
    expect(fields.repo).toMatch(/owner\/name/);
    expect(body.error.code).toBe('validation_failed');
  });

  it('400 for malformed JSON and for a repository the forge does not have, without a stack trace', async () => {
    const bad = await sys.request('POST', '/v1/operations', '{"type": ', {});
    expect(bad.status).toBe(400);
    const badText = await bad.text();
    expect(badText).not.toMatch(/at \w+ \(/);
    const missing = await sys.request('POST', '/v1/operations', { type: 'debug', repo: 'acme/nope', description: 'x' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as ErrorBody).error.fields).toEqual([
      { field: 'repo', reason: 'not found on the local forge' },
    ]);
  });

  it('404 for an unknown operation and for a malformed id', async () => {
    const unknown = await sys.request('GET', '/v1/operations/abcdef123456');
    expect(unknown.status).toBe(404);
    const malformed = await sys.request('GET', '/v1/operations/..%2f..%2fetc');
    expect([400, 404]).toContain(malformed.status);
  });

  it('409 with the current status when the state does not allow the action', async () => {
    const created = (await (
      await sys.request('POST', '/v1/operations', { type: 'fix', repo, description: 'x' })
    ).json()) as { id: string };
    const approve = await sys.request('POST', `/v1/operations/${created.id}/approve`, {});
    expect(approve.status).toBe(409);
    expect(((await approve.json()) as ErrorBody).error).toMatchObject({ code: 'invalid_transition', status: 'queued' });
  });

  it('cancel of a queued operation ends it with a reason and removes its job', async () => {
    const { id } = (await (
      await sys.request('POST', '/v1/operations', { type: 'fix', repo, description: 'x' })
    ).json()) as { id: string };
    const res = await sys.request('POST', `/v1/operations/${id}/cancel`, {});
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'cancelled', error: 'cancelled by api' });
    expect(await sys.runtime.queue.queue.getJob(id)).toBeUndefined();
    const again = await sys.request('POST', `/v1/operations/${id}/cancel`, {});
    expect(again.status).toBe(409);
  });

  it('Idempotency-Key returns the first operation again and enqueues once', async () => {
    const body = { type: 'implement', repo, description: 'add a --dry-run flag' };
    const first = await sys.request('POST', '/v1/operations', body, { 'idempotency-key': 'req-42' });
    const second = await sys.request('POST', '/v1/operations', body, { 'idempotency-key': 'req-42' });
    expect(first.status).toBe(202);
    expect(second.status).toBe(200);
    const a = (await first.json()) as { id: string };
    const b = (await second.json()) as { id: string };
    expect(b.id).toBe(a.id);
    const ops = (await (await sys.request('GET', '/v1/operations?limit=200')).json()) as {
      operations: { description: string }[];
    };
    expect(ops.operations.filter((o) => o.description === body.description)).toHaveLength(1);
    expect(await sys.runtime.queue.queue.getJobCountByTypes('waiting', 'prioritized')).toBeGreaterThan(0);
  });

  it('lists newest first and filters by status', async () => {
    const list = (await (await sys.request('GET', '/v1/operations?status=cancelled')).json()) as {
      operations: { status: string }[];
    };
    expect(list.operations.length).toBeGreaterThan(0);
    expect(list.operations.every((o) => o.status === 'cancelled')).toBe(true);
    const bad = await sys.request('GET', '/v1/operations?status=nope&limit=0');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error.fields!.map((f) => f.field).sort()).toEqual(['limit', 'status']);
  });

  it('health is public; readiness reports Redis', async () => {
    expect((await fetch(`${sys.api.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${sys.api.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ redis: 'up' });
  });

  it('serves the dashboard page', async () => {
    const page = await fetch(`${sys.api.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Pullwright</title>');
  });

  it('streams an operation’s events over SSE and resumes after Last-Event-ID', async () => {
    const { id } = (await (
      await sys.request('POST', '/v1/operations', { type: 'fix', repo, description: 'sse' })
    ).json()) as { id: string };
    await sys.request('POST', `/v1/operations/${id}/cancel`, {});
    const read = async (headers: Record<string, string>) => {
      const ctrl = new AbortController();
      const res = await sys.request('GET', `/v1/operations/${id}/events`, undefined, {
        accept: 'text/event-stream',
        ...headers,
      });
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const reader = res.body!.getReader();
      let text = '';
      const deadline = Date.now() + 5000;
      while (!text.includes('"to":"cancelled"') && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
        if (headers['last-event-id']) break;
      }
      ctrl.abort();
      await reader.cancel();
      return text;
    };
    const all = await read({});
    const ids = [...all.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]!);
    expect(ids.length).toBe(2);
    expect(all).toContain('"type":"created"');
    const rest = await read({ 'last-event-id': ids[0]! });
    expect(rest).not.toContain('"type":"created"');
    expect(rest).toContain(`id: ${ids[1]}`);
  });
});
