import zlib from 'node:zlib';
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

  it('accepts gzip and deflate bodies, CRLF and tabs, a lowered budget, and an admin raising a cap', async () => {
    const text = op('"description":"line one\\r\\n\\tindented","budget":{"costUsd":2}');
    for (const [encoding, bytes] of [
      ['gzip', zlib.gzipSync(text)],
      ['deflate', zlib.deflateSync(text)],
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
