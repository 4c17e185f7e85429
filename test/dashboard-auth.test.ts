import { ConfigError, loadConfig } from '@pullwright/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitingApproval as awaitingApprovalAt } from './support/awaiting-approval.ts';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, TEST_TOKEN, type TestSystem } from './support/test-runtime.ts';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdefgh';
const HEAD = 'a'.repeat(40);

interface Signed {
  cookie: string;
  csrf: string;
  setCookie: string;
  body: { user: string; canApprove: boolean; csrfToken: string; expiresAt: string };
}

async function signIn(sys: TestSystem, token: string, headers: Record<string, string> = {}): Promise<Signed> {
  const res = await fetch(`${sys.api.url}/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ token }),
  });
  expect(res.status).toBe(201);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const body = (await res.json()) as Signed['body'];
  return { cookie: setCookie.split(';')[0]!, csrf: body.csrfToken, setCookie, body };
}

function asUser(sys: TestSystem, who: Pick<Signed, 'cookie' | 'csrf'> | undefined, csrf?: string | null) {
  return (method: string, url: string, body?: unknown) => {
    const headers: Record<string, string> = {};
    if (who) headers.cookie = who.cookie;
    const token = csrf === undefined ? who?.csrf : csrf;
    if (token) headers['x-csrf-token'] = token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return fetch(`${sys.api.url}${url}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  };
}

const awaitingApproval = (sys: TestSystem, repo: string) => awaitingApprovalAt(sys, repo, HEAD);

describe('dashboard sign-in, sessions and CSRF', () => {
  let sys: TestSystem;
  let repo: string;
  beforeAll(async () => {
    sys = await startTestSystem({
      worker: false,
      env: { DASHBOARD_USERS: `alice:${ALICE},bob:${BOB}`, DASHBOARD_APPROVERS: 'alice' },
    });
    repo = await createSampleRepo(sys.runtime.localForge!);
  });
  afterAll(async () => sys?.stop());

  it('refuses a wrong token with 401, sets no cookie and does not echo the token', async () => {
    const res = await fetch(`${sys.api.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: 'not-a-real-token-value' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
    const text = await res.text();
    expect(text).not.toContain('not-a-real-token-value');
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('accepts only JSON sign-ins, so a cross-site form cannot sign a browser in', async () => {
    const res = await fetch(`${sys.api.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${ALICE}`,
    });
    expect(res.status).toBe(415);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('signs a user in with an httpOnly, SameSite=Strict cookie and reveals no token', async () => {
    const alice = await signIn(sys, ALICE);
    expect(alice.setCookie).toMatch(/^pw_session=[A-Za-z0-9_-]{43};/);
    expect(alice.setCookie).toMatch(/HttpOnly/i);
    expect(alice.setCookie).toMatch(/SameSite=Strict/i);
    expect(alice.setCookie).toMatch(/Path=\//);
    expect(alice.setCookie).not.toMatch(/Secure/i);
    expect(alice.body).toMatchObject({ user: 'alice', canApprove: true });
    expect(JSON.stringify(alice.body)).not.toContain(ALICE);

    const me = await asUser(sys, alice)('GET', '/v1/session');
    expect(me.status).toBe(200);
    expect(me.headers.get('cache-control')).toBe('no-store');
    const body = await me.json();
    expect(body).toMatchObject({ user: 'alice', csrfToken: alice.csrf });

    // The API token signs in as the operator, who may always approve.
    const operator = await signIn(sys, TEST_TOKEN);
    expect(operator.body).toMatchObject({ user: 'operator', canApprove: true });
    const bob = await signIn(sys, BOB);
    expect(bob.body).toMatchObject({ user: 'bob', canApprove: false });
  });

  it('marks the cookie Secure behind an https proxy', async () => {
    const viaProxy = await signIn(sys, ALICE, { 'x-forwarded-proto': 'https' });
    expect(viaProxy.setCookie).toMatch(/;\s*Secure/i);
  });

  it('lets a session read but refuses state changes without the right CSRF header (403)', async () => {
    const alice = await signIn(sys, ALICE);
    const list = await asUser(sys, alice, null)('GET', '/v1/operations');
    expect(list.status).toBe(200);

    const create = { type: 'debug', repo, description: 'from the dashboard' };
    const missing = await asUser(sys, alice, null)('POST', '/v1/operations', create);
    expect(missing.status).toBe(403);
    expect(await missing.json()).toMatchObject({ error: { code: 'csrf_failed' } });
    const wrong = await asUser(sys, alice, 'x'.repeat(43))('POST', '/v1/operations', create);
    expect(wrong.status).toBe(403);
    // Another session's token is just as wrong.
    const bob = await signIn(sys, BOB);
    const crossed = await asUser(sys, alice, bob.csrf)('POST', '/v1/operations', create);
    expect(crossed.status).toBe(403);
    expect((await sys.runtime.store.list()).some((o) => o.description === 'from the dashboard')).toBe(false);

    // With it, the session decides who asked: the body cannot claim another user or source.
    const ok = await asUser(sys, alice)('POST', '/v1/operations', { ...create, user: 'mallory', source: 'api' });
    expect(ok.status).toBe(202);
    const { id } = (await ok.json()) as { id: string };
    expect((await sys.runtime.store.get(id)).requester).toEqual({ source: 'dashboard', user: 'alice' });
  });

  it('judges a request that sends Authorization by the bearer token alone', async () => {
    const alice = await signIn(sys, ALICE);
    const bearer = await sys.request('GET', '/v1/operations');
    expect(bearer.status).toBe(200);
    const WRONG_TOKEN = 'wrong-token-value-123456';
    const wrongBearer = await fetch(`${sys.api.url}/v1/operations`, {
      headers: { authorization: `Bearer ${WRONG_TOKEN}`, cookie: alice.cookie },
    });
    expect(wrongBearer.status).toBe(401);
    const noCredentials = await fetch(`${sys.api.url}/v1/operations`);
    expect(noCredentials.status).toBe(401);
    // A per-user dashboard token is not an API bearer token.
    const userAsBearer = await fetch(`${sys.api.url}/v1/operations`, { headers: { authorization: `Bearer ${ALICE}` } });
    expect(userAsBearer.status).toBe(401);
  });

  it('signs out: the session is destroyed server-side, the cookie cleared, and the old cookie refused', async () => {
    const alice = await signIn(sys, ALICE);
    const noCsrf = await asUser(sys, alice, null)('DELETE', '/v1/session');
    expect(noCsrf.status).toBe(403);
    const out = await asUser(sys, alice)('DELETE', '/v1/session');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/pw_session=;.*Expires=Thu, 01 Jan 1970/);
    const after = await asUser(sys, alice)('GET', '/v1/operations');
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({
      error: { message: expect.stringMatching(/expired or was signed out/) },
    });
  });

  it('a new sign-in replaces the session the browser had', async () => {
    const first = await signIn(sys, ALICE);
    const second = await signIn(sys, BOB, { cookie: first.cookie });
    expect((await asUser(sys, first)('GET', '/v1/session')).status).toBe(401);
    expect((await asUser(sys, second)('GET', '/v1/session')).status).toBe(200);
  });

  it('enforces the approver list on approve and reject, and records the signed-in user', async () => {
    const alice = await signIn(sys, ALICE);
    const bob = await signIn(sys, BOB);
    const id = await awaitingApproval(sys, repo);

    const bobApproves = await asUser(sys, bob)('POST', `/v1/operations/${id}/approve`, { headSha: HEAD });
    expect(bobApproves.status).toBe(403);
    expect(await bobApproves.json()).toMatchObject({ error: { code: 'forbidden' } });
    const bobRejects = await asUser(sys, bob)('POST', `/v1/operations/${id}/reject`, { reason: 'no' });
    expect(bobRejects.status).toBe(403);
    expect((await sys.runtime.store.get(id)).status).toBe('awaiting_approval');

    // The approval is bound to the sha the page showed.
    const moved = await asUser(sys, alice)('POST', `/v1/operations/${id}/approve`, { headSha: 'b'.repeat(40) });
    expect(moved.status).toBe(409);
    const noSha = await asUser(sys, alice)('POST', `/v1/operations/${id}/approve`, {});
    expect(noSha.status).toBe(400);
    const claimsUser = await asUser(sys, alice)('POST', `/v1/operations/${id}/approve`, {
      headSha: HEAD,
      user: 'carol',
    });
    expect(claimsUser.status).toBe(400);

    const approved = await asUser(sys, alice)('POST', `/v1/operations/${id}/approve`, { headSha: HEAD });
    expect(approved.status).toBe(200);
    const op = await sys.runtime.store.get(id);
    expect(op.status).toBe('approved');
    expect(op.approval).toMatchObject({ by: 'alice', source: 'dashboard', headSha: HEAD });
    const status = (await sys.runtime.events.list(id)).filter((e) => e.type === 'status').at(-1);
    expect(status?.data).toMatchObject({ to: 'approved', by: 'alice', source: 'dashboard' });
  });

  it('records the signed-in user on reject and cancel', async () => {
    const alice = await signIn(sys, ALICE);
    const bob = await signIn(sys, BOB);
    const id = await awaitingApproval(sys, repo);
    const rejected = await asUser(sys, alice)('POST', `/v1/operations/${id}/reject`, { reason: 'wrong approach' });
    expect(rejected.status).toBe(200);
    expect((await sys.runtime.store.get(id)).error).toBe('rejected by alice: wrong approach');

    // Cancelling is not an approval decision: any signed-in user may.
    const created = await sys.request('POST', '/v1/operations', { type: 'fix', repo, description: 'to cancel' });
    const { id: queued } = (await created.json()) as { id: string };
    const cancelled = await asUser(sys, bob)('POST', `/v1/operations/${queued}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(await sys.runtime.store.get(queued)).toMatchObject({ status: 'cancelled', error: 'cancelled by bob' });
  });

  it('keeps bearer clients on the REST contract (user from the body, no approver list)', async () => {
    const id = await awaitingApproval(sys, repo);
    const res = await sys.request('POST', `/v1/operations/${id}/approve`, { headSha: HEAD, user: 'ci-bot' });
    expect(res.status).toBe(200);
    expect((await sys.runtime.store.get(id)).approval).toMatchObject({ by: 'ci-bot', source: 'api' });
  });

  it('serves pages and scripts that hold no secret, under a strict content security policy', async () => {
    const alice = await signIn(sys, ALICE);
    for (const file of ['/', '/app.js', '/api.js', '/view-operation.js', '/view-list.js', '/style.css']) {
      const res = await fetch(`${sys.api.url}${file}`, { headers: { cookie: alice.cookie } });
      expect(res.status, file).toBe(200);
      const text = await res.text();
      for (const secret of [TEST_TOKEN, ALICE, BOB, alice.cookie.split('=')[1]!]) expect(text).not.toContain(secret);
      expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
    const session = await (await asUser(sys, alice)('GET', '/v1/session')).text();
    for (const secret of [TEST_TOKEN, ALICE, alice.cookie.split('=')[1]!]) expect(session).not.toContain(secret);
  });
});

describe('dashboard session expiry', () => {
  let sys: TestSystem;
  /** How far the API's clock runs ahead of the wall clock. */
  let ahead = 0;
  beforeAll(async () => {
    sys = await startTestSystem({ worker: false, now: () => Date.now() + ahead });
  });
  afterAll(async () => sys?.stop());

  it('refuses a session once its time is up (12 h by default), by the API’s clock', async () => {
    const op = await signIn(sys, TEST_TOKEN);
    expect(op.setCookie).toMatch(/Max-Age=43200;/);
    ahead = 12 * 3600_000 - 60_000;
    expect((await asUser(sys, op)('GET', '/v1/operations')).status).toBe(200);
    ahead = 12 * 3600_000 + 1000;
    const expired = await asUser(sys, op)('GET', '/v1/operations');
    expect(expired.status).toBe(401);
    expect((await asUser(sys, op)('GET', '/v1/session')).status).toBe(401);
  });
});

describe('DASHBOARD_USERS configuration', () => {
  it('parses users, tokens and approvers, and feeds the tokens to the Redactor', () => {
    const config = loadConfig({ DASHBOARD_USERS: ` alice:${ALICE}, bob:${BOB} `, DASHBOARD_APPROVERS: 'alice, carol' });
    expect(config.dashboard.users).toEqual([
      { user: 'alice', token: ALICE },
      { user: 'bob', token: BOB },
    ]);
    expect(config.dashboard.approvers).toEqual(['alice', 'carol']);
    expect(config.dashboard.sessionTtlS).toBe(12 * 3600);
  });

  it('reports a bad entry by user name without printing its token', () => {
    try {
      loadConfig({
        DASHBOARD_USERS: 'alice:short-secret,bad name:whatever-long-token-1234,alice:dup-token-0123456789ab',
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const message = (err as ConfigError).message;
      expect(message).toMatch(/alice: token must be at least 16 characters/);
      expect(message).toMatch(/entry 2: user must be/);
      expect(message).toMatch(/alice: listed twice/);
      for (const secret of ['short-secret', 'whatever-long-token-1234', 'dup-token-0123456789ab'])
        expect(message).not.toContain(secret);
    }
  });
});
