import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { examplePayload } from './support/fake-github/webhook-payloads.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';

const SECRET = 'webhook-secret-for-replay-tests';

describe('GitHub webhook replay protection', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ worker: false, captureLogs: true, env: { GITHUB_WEBHOOK_SECRET: SECRET } });
  });
  afterAll(async () => sys?.stop());

  /** POSTs `body` signed as GitHub signs it; the delivery id is a header outside the signature. */
  const deliver = async (body: string, delivery: string) => {
    const res = await fetch(`${sys.api.url}/github/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'pull_request_review',
        'x-github-delivery': delivery,
        'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
      },
      body,
    });
    return { status: res.status, outcome: ((await res.json()) as { outcome: string }).outcome };
  };

  it('a captured delivery re-sent under a new delivery id is answered 200, logged, and processed once', async () => {
    const body = JSON.stringify(examplePayload('pull_request_review', 'submitted'));
    const first = await deliver(body, randomUUID());
    expect(first.status).toBe(200);
    expect(first.outcome).not.toMatch(/duplicate/);
    for (const replay of [await deliver(body, randomUUID()), await deliver(body, randomUUID())]) {
      expect(replay).toEqual({ status: 200, outcome: 'duplicate delivery: already handled' });
    }
    const handled = sys.logLines.filter((l) => l.includes('"msg":"webhook handled"'));
    const ignored = sys.logLines.filter((l) => l.includes('"msg":"duplicate webhook delivery ignored"'));
    expect(handled).toHaveLength(1);
    expect(ignored).toHaveLength(2);
    expect(ignored[0]).toContain('"sameBody":true');
  });

  it("GitHub's redelivery (same id and body) is a duplicate; a different body is handled", async () => {
    const id = randomUUID();
    const a = examplePayload('pull_request_review', 'submitted');
    const first = await deliver(JSON.stringify({ ...a, marker: 1 }), id);
    expect(first.outcome).not.toMatch(/duplicate/);
    // GitHub's redeliver button sends the same id and body: a duplicate.
    expect((await deliver(JSON.stringify({ ...a, marker: 1 }), id)).outcome).toMatch(/^duplicate/);
    expect((await deliver(JSON.stringify({ ...a, marker: 2 }), randomUUID())).outcome).not.toMatch(/duplicate/);
  });

  it('answers an unsupported or broken Content-Encoding with 4xx before the signature is checked, never 500', async () => {
    for (const [encoding, status] of [
      ['compress', 415],
      ['gzip', 400],
    ] as const) {
      const res = await fetch(`${sys.api.url}/github/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: 'not compressed',
      });
      expect(res.status).toBe(status);
    }
  });
});
