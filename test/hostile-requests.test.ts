import { createHmac, randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import { signSlackRequest } from '@pullwright/slack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, TEST_TOKEN, type TestSystem } from './support/test-runtime.ts';

interface ErrorBody {
  error: { code: string; message: string; fields?: { field: string; reason: string }[] };
}

const IDENTITIES = [
  { id: 'ann', role: 'admin', api: ['ann'] },
  { id: 'cy', role: 'committer', api: ['cy'] },
];

/** A POST with the body sent byte for byte as given (JSON text, compressed or not). */
function post(sys: TestSystem, body: string | Buffer, headers: Record<string, string> = {}) {
  return fetch(`${sys.api.url}/v1/operations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json', ...headers },
    body,
  });
}

async function operationCount(sys: TestSystem): Promise<number> {
  const list = (await (await sys.request('GET', '/v1/operations?limit=200')).json()) as { operations: unknown[] };
  return list.operations.length;
}

describe('requests refused at the door', () => {
  let sys: TestSystem;
  let repo: string;
  // JSON text with the escapes kept as escapes: JSON.stringify would not produce a lone surrogate for us.
  const op = (fields: string): string => `{"type":"fix","repo":"${repo}","user":"cy",${fields}}`;
  beforeAll(async () => {
    sys = await startTestSystem({ worker: false, env: { IDENTITIES: JSON.stringify(IDENTITIES) } });
    repo = await createSampleRepo(sys.runtime.localForge!);
  });
  afterAll(async () => sys?.stop());

  const cases: Array<[string, () => string | Buffer, Record<string, string>, number, string | undefined, RegExp]> = [
    [
      'a lone surrogate in the description',
      () => op('"description":"fix \\ud800 this"'),
      {},
      400,
      'description',
      /lone surrogate/,
    ],
    ['a NUL in the description', () => op('"description":"fix\\u0000this"'), {}, 400, 'description', /U\+0000 \(NUL\)/],
    [
      'an escape character in the logs',
      () => op('"description":"x","context":{"logs":"\\u001b[31mred"}'),
      {},
      400,
      'context.logs',
      /U\+001B/,
    ],
    [
      'a lone low surrogate in the user',
      () => op('"description":"x"').replace('"cy"', '"\\udc00"'),
      {},
      400,
      'user',
      /lone surrogate/,
    ],
    [
      'an unsupported Content-Encoding',
      () => op('"description":"x"'),
      { 'content-encoding': 'compress' },
      415,
      'Content-Encoding',
      /compress/,
    ],
    [
      'a malformed gzip body',
      () => 'not gzip at all',
      { 'content-encoding': 'gzip' },
      400,
      'body',
      /does not decompress/,
    ],
    [
      'a truncated gzip body',
      () => zlib.gzipSync(op('"description":"x"')).subarray(0, 15),
      { 'content-encoding': 'gzip' },
      400,
      'body',
      /does not decompress/,
    ],
    [
      'an unknown charset',
      () => op('"description":"x"'),
      { 'content-type': 'application/json; charset=klingon' },
      400,
      'Content-Type',
      /charset/,
    ],
    [
      'a cost cap above the policy maximum',
      () => op('"description":"x","budget":{"costUsd":1000}'),
      {},
      403,
      undefined,
      /budget\.costUsd 1000 is above the policy's cap of 5: only an admin may raise it \(cy has the committer role\)/,
    ],
    [
      'a turn cap above the policy maximum',
      () => op('"description":"x","budget":{"turns":500}'),
      {},
      403,
      undefined,
      /budget\.turns 500 is above the policy's cap of 40/,
    ],
  ];
  it.each(cases)(
    '%s → %i naming the field, no operation created',
    async (_name, body, headers, status, field, reason) => {
      const before = await operationCount(sys);
      const res = await post(sys, body(), headers);
      expect(res.status).toBe(status);
      const error = ((await res.json()) as ErrorBody).error;
      expect(error.message).toMatch(reason);
      if (field) expect(error.fields?.[0]).toMatchObject({ field, reason: expect.stringMatching(reason) });
      expect(await operationCount(sys)).toBe(before);
    },
  );

  it('refuses an unsupported encoding with 415 even before authentication, never 500', async () => {
    const res = await post(sys, '{}', { 'content-encoding': 'compress', authorization: 'Bearer wrong' });
    expect(res.status).toBe(415);
  });

  it('accepts gzip, deflate and br bodies, CRLF and tabs, a lowered budget, and an admin raising a cap', async () => {
    const text = op('"description":"line one\\r\\n\\tindented","budget":{"costUsd":2}');
    for (const [encoding, bytes] of [
      ['gzip', zlib.gzipSync(text)],
      ['deflate', zlib.deflateSync(text)],
      ['br', zlib.brotliCompressSync(text)],
    ] as const) {
      const res = await post(sys, bytes, { 'content-encoding': encoding });
      expect(res.status).toBe(202);
    }
    const admin = await post(sys, op('"description":"x","budget":{"costUsd":50}').replace('"cy"', '"ann"'));
    expect(admin.status).toBe(202);
    const { id } = (await admin.json()) as { id: string };
    expect((await sys.runtime.store.get(id)).budget).toEqual({ costUsd: 50 });

    // A retry is a new request: the admin's raised cap does not carry over to a committer.
    expect((await sys.request('POST', `/v1/operations/${id}/cancel`, { user: 'ann' })).status).toBe(200);
    const retry = await sys.request('POST', `/v1/operations/${id}/retry`, { user: 'cy' });
    expect(retry.status).toBe(403);
    expect(((await retry.json()) as ErrorBody).error.message).toMatch(
      /budget\.costUsd 50 is above the policy's cap of 5/,
    );
    expect((await sys.request('POST', `/v1/operations/${id}/retry`, { user: 'ann' })).status).toBe(202);
  });
});

describe('budget caps without an identity directory', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ worker: false });
  });
  afterAll(async () => sys?.stop());

  it('the API token alone cannot raise a cap: nobody is an admin until IDENTITIES names one', async () => {
    const repo = await createSampleRepo(sys.runtime.localForge!);
    const res = await sys.request('POST', '/v1/operations', {
      type: 'fix',
      repo,
      description: 'x',
      budget: { costUsd: 1000 },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as ErrorBody).error.message).toBe(
      "budget.costUsd 1000 is above the policy's cap of 5: only an admin may raise it (no IDENTITIES are configured)",
    );
  });
});

describe('JSON nested deeper than the door allows', () => {
  const SLACK_SECRET = 'slack-signing-secret-for-depth-tests';
  const GITHUB_SECRET = 'github-webhook-secret-for-depth-tests';
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({
      worker: false,
      env: { SLACK_SIGNING_SECRET: SLACK_SECRET, GITHUB_WEBHOOK_SECRET: GITHUB_SECRET },
    });
  });
  afterAll(async () => sys?.stop());

  // 5,000 levels: parsing it was fine, the recursive checks after it overflowed the stack (500).
  const deep = (levels: number) => `{"description":${'['.repeat(levels)}${']'.repeat(levels)}}`;
  const json = { 'content-type': 'application/json' };
  const bearer = { ...json, authorization: `Bearer ${TEST_TOKEN}` };
  const routes: Array<[string, string, Record<string, string>]> = [
    ['/v1/session', 'no credentials', json],
    ['/v1/operations', 'no credentials', json],
    ['/v1/operations', 'a wrong token', { ...json, authorization: 'Bearer wrong' }],
    ['/v1/operations', 'the API token', bearer],
    ['/v1/operations/abc123/approve', 'the API token', bearer],
    ['/v1/operations/abc123/revise', 'the API token', bearer],
    ['/v1/operations/abc123/cancel', 'the API token', bearer],
    ['/v1/feature-requests', 'the API token', bearer],
    ['/v1/no-such-route', 'no credentials', json],
  ];

  it.each(routes)('POST %s with %s → 400 naming the depth, before authentication', async (route, _who, headers) => {
    const res = await fetch(`${sys.api.url}${route}`, { method: 'POST', headers, body: deep(5000) });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as ErrorBody;
    expect(error).toMatchObject({
      code: 'validation_failed',
      message: 'invalid body: body is nested 5001 levels deep; at most 64 are accepted',
    });
  });

  it('a body at the limit is read as usual', async () => {
    const res = await fetch(`${sys.api.url}/v1/session`, { method: 'POST', headers: json, body: deep(63) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.message).not.toMatch(/nested/);
  });

  it('Slack events and interactions, signed, → 400', async () => {
    const events = deep(5000);
    const res = await fetch(`${sys.api.url}/slack/events`, {
      method: 'POST',
      headers: { ...json, ...signSlackRequest(SLACK_SECRET, events) },
      body: events,
    });
    expect(res.status).toBe(400);
    const form = new URLSearchParams({ payload: deep(5000) }).toString();
    const interaction = await fetch(`${sys.api.url}/slack/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...signSlackRequest(SLACK_SECRET, form) },
      body: form,
    });
    expect(interaction.status).toBe(400);
    expect(((await interaction.json()) as ErrorBody).error.message).toMatch(/payload is nested 5001 levels deep/);
  });

  it('a GitHub webhook, signed, → 400', async () => {
    const body = deep(5000);
    const res = await fetch(`${sys.api.url}/github/webhooks`, {
      method: 'POST',
      headers: {
        ...json,
        'x-github-event': 'issue_comment',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${createHmac('sha256', GITHUB_SECRET).update(body).digest('hex')}`,
      },
      body,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.message).toMatch(/nested 5001 levels deep/);
  });
});
