import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitingApproval } from './support/awaiting-approval.ts';
import { FakeGitHub } from './support/fake-github.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';

const CLIENT_ID = 'Iv1.pullwrighttest';
const CLIENT_SECRET = 'oauth-client-secret-0123456789abcdef';
/** Where people reach the dashboard; the test plays the proxy that forwards it to the API. */
const PUBLIC_URL = 'http://dashboard.test';
const HEAD = 'b'.repeat(40);
const IDENTITIES = [{ id: 'ada', role: 'admin', github: ['octo-admin'] }];

interface Browser {
  cookies: Map<string, string>;
}

function remember(browser: Browser, res: Response): void {
  for (const header of res.headers.getSetCookie()) {
    const [pair] = header.split(';');
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq);
    const value = pair!.slice(eq + 1);
    if (value === '' || /Expires=Thu, 01 Jan 1970/i.test(header)) browser.cookies.delete(name);
    else browser.cookies.set(name, value);
  }
}

describe('sign in with GitHub on the dashboard (OAuth web flow against a local GHES)', () => {
  let gh: FakeGitHub;
  let sys: TestSystem;

  /** A browser request: cookies sent and kept, redirects not followed, PUBLIC_URL mapped to the API. */
  async function visit(browser: Browser, url: string, init: RequestInit = {}): Promise<Response> {
    const target = url.startsWith(PUBLIC_URL) ? `${sys.api.url}${url.slice(PUBLIC_URL.length)}` : url;
    const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(target, {
      ...init,
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(init.headers as Record<string, string>) },
    });
    remember(browser, res);
    return res;
  }

  /** The whole round trip as `login`; returns the browser, signed in, and the callback URL it used. */
  async function signInAs(login: string): Promise<{ browser: Browser; callback: string }> {
    const browser: Browser = { cookies: new Map() };
    const start = await visit(browser, `${PUBLIC_URL}/v1/session/github`);
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.get('location')!);
    expect(authorize.origin + authorize.pathname).toBe(`${gh.url}/login/oauth/authorize`);
    expect(authorize.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/v1/session/github/callback`);
    expect(browser.cookies.get('pw_oauth_state')).toBe(authorize.searchParams.get('state'));

    gh.oauth.browserLogin = login;
    const back = await visit(browser, authorize.toString());
    expect(back.status).toBe(302);
    const callback = back.headers.get('location')!;
    const landed = await visit(browser, callback);
    expect(landed.status).toBe(303);
    expect(landed.headers.get('location')).toBe('/');
    expect(browser.cookies.has('pw_oauth_state')).toBe(false);
    return { browser, callback };
  }

  async function session(browser: Browser) {
    const res = await visit(browser, `${PUBLIC_URL}/v1/session`);
    expect(res.status).toBe(200);
    return (await res.json()) as { user: string; via: string; canApprove: boolean; csrfToken: string };
  }

  beforeAll(async () => {
    gh = await new FakeGitHub().start();
    gh.oauth.registerApp(CLIENT_ID, CLIENT_SECRET, `${PUBLIC_URL}/v1/session/github/callback`);
    sys = await startTestSystem({
      worker: false,
      env: {
        GITHUB_URL: gh.url,
        GITHUB_CLIENT_ID: CLIENT_ID,
        GITHUB_CLIENT_SECRET: CLIENT_SECRET,
        IDENTITIES: JSON.stringify(IDENTITIES),
        PUBLIC_URL,
      },
    });
  });
  afterAll(async () => {
    await sys?.stop();
    await gh?.stop();
  });

  it('offers the button, and the round trip makes the GitHub login the dashboard user', async () => {
    const status = await fetch(`${sys.api.url}/v1/session/github/status`);
    expect(await status.json()).toEqual({ enabled: true });

    const { browser } = await signInAs('octo-admin');
    expect(browser.cookies.get('pw_session')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await session(browser)).toMatchObject({ user: 'octo-admin', via: 'github', canApprove: true });
    expect(gh.oauth.exchanges).toContainEqual({ clientId: CLIENT_ID, ok: true });
  });

  it('a GitHub login without a role sees operations but cannot approve; a login with one can', async () => {
    const { store } = sys.runtime;
    await sys.runtime.localForge!.createRepository('acme/widget', { 'README.md': 'hi\n' });
    const id = await awaitingApproval(sys, 'acme/widget', HEAD, { source: 'github', user: 'octo-admin' });
    const op = { id };

    const { browser: newcomer } = await signInAs('newcomer');
    const me = await session(newcomer);
    expect(me).toMatchObject({ user: 'newcomer', via: 'github', canApprove: false });
    const list = await visit(newcomer, `${PUBLIC_URL}/v1/operations`);
    expect(list.status).toBe(200);
    const seen = await visit(newcomer, `${PUBLIC_URL}/v1/operations/${op.id}`);
    expect(seen.status).toBe(200);
    const post = (browser: Browser, csrf: string, action: string, body: unknown) =>
      visit(browser, `${PUBLIC_URL}/v1/operations/${op.id}/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify(body),
      });
    const refused = await post(newcomer, me.csrfToken, 'approve', { headSha: HEAD });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      error: { code: 'forbidden', message: 'newcomer has no role that may approve (IDENTITIES)' },
    });
    // Nor ask for changes: the policy resolves the GitHub login, whatever the body says.
    const create = await visit(newcomer, `${PUBLIC_URL}/v1/operations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrfToken },
      body: JSON.stringify({ type: 'debug', repo: 'acme/widget', description: 'x', user: 'octo-admin' }),
    });
    expect(create.status).toBe(403);
    expect(await create.json()).toMatchObject({ error: { message: expect.stringMatching(/github:newcomer/) } });
    expect((await store.get(op.id)).status).toBe('awaiting_approval');

    const { browser: admin } = await signInAs('octo-admin');
    const adminSession = await session(admin);
    const approved = await post(admin, adminSession.csrfToken, 'approve', { headSha: HEAD });
    expect(approved.status).toBe(200);
    const after = await store.get(op.id);
    expect(after.approvals?.map((a) => [a.identity, a.user, a.source, a.role])).toEqual([
      ['ada', 'octo-admin', 'github', 'admin'],
    ]);
  });

  it('refuses a callback this browser did not start, and a code used twice', async () => {
    const { callback } = await signInAs('octo-admin');
    // Replayed in another browser (no state cookie): login CSRF.
    const stranger: Browser = { cookies: new Map() };
    const forged = await visit(stranger, callback);
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: { fields: [{ field: 'state', reason: 'does not match' }] } });
    expect(stranger.cookies.has('pw_session')).toBe(false);

    // The same browser again, with a fresh state but the spent code: GitHub refuses it.
    const again: Browser = { cookies: new Map() };
    const start = await visit(again, `${PUBLIC_URL}/v1/session/github`);
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const reused = new URL(callback);
    reused.searchParams.set('state', state);
    const spent = await visit(again, reused.toString());
    expect(spent.status).toBe(502);
    const text = await spent.text();
    expect(text).toContain('bad_verification_code');
    expect(text).not.toContain(CLIENT_SECRET);
    expect(again.cookies.has('pw_session')).toBe(false);
  });

  it('the queue board (bull-board) is for admins only, and read-only', async () => {
    await sys.runtime.queue.add('run', { opId: 'opqueueboard0001' });
    const { browser: admin } = await signInAs('octo-admin');
    const page = await visit(admin, `${PUBLIC_URL}/admin/queues`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Pullwright queue');
    const queues = await visit(
      admin,
      `${PUBLIC_URL}/admin/queues/api/queues?activeQueue=code-operations&status=prioritized`,
    );
    expect(queues.status).toBe(200);
    const body = (await queues.json()) as { queues: { name: string; readOnlyMode: boolean; jobs: { id: string }[] }[] };
    const queue = body.queues.find((q) => q.name === 'code-operations')!;
    expect(queue.readOnlyMode).toBe(true);
    expect(queue.jobs.map((j) => j.id)).toContain('opqueueboard0001');
    const adminSession = await session(admin);
    const clean = await visit(admin, `${PUBLIC_URL}/admin/queues/api/queues/code-operations/clean/waiting`, {
      method: 'PUT',
      headers: { 'x-csrf-token': adminSession.csrfToken },
    });
    expect(clean.status).toBeGreaterThanOrEqual(400);
    expect(await sys.runtime.queue.queue.getJob('opqueueboard0001')).toBeDefined();

    const { browser: newcomer } = await signInAs('newcomer');
    const refused = await visit(newcomer, `${PUBLIC_URL}/admin/queues`);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      error: { message: 'newcomer may not see the queue: that needs the admin role' },
    });
    expect((await fetch(`${sys.api.url}/admin/queues`)).status).toBe(401);
    const bearer = await sys.request('GET', '/admin/queues/api/queues');
    expect(bearer.status).toBe(200);
  });
});
