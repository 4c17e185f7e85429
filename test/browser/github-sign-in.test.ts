import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../support/fake-github.ts';
import { freePort } from '../support/free-port.ts';
import { startTestSystem, type TestSystem } from '../support/test-runtime.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CLIENT_ID = 'Iv1.browsertest';
const CLIENT_SECRET = 'oauth-client-secret-browser-0123456789';

describe('Sign in with GitHub in a real browser', () => {
  let gh: FakeGitHub;
  let sys: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `chromium is not installed at ${CHROMIUM}: run \`apt-get install -y chromium\` or set CHROMIUM_PATH`,
      );
    }
    // PUBLIC_URL (the OAuth callback) must name the API's port before the API starts.
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    gh = await new FakeGitHub().start();
    gh.oauth.registerApp(CLIENT_ID, CLIENT_SECRET, `${publicUrl}/v1/session/github/callback`);
    gh.oauth.browserLogin = 'octo-admin';
    sys = await startTestSystem({
      worker: false,
      env: {
        PORT: String(port),
        PUBLIC_URL: publicUrl,
        GITHUB_URL: gh.url,
        GITHUB_CLIENT_ID: CLIENT_ID,
        GITHUB_CLIENT_SECRET: CLIENT_SECRET,
        IDENTITIES: JSON.stringify([{ id: 'ada', role: 'admin', github: ['octo-admin'] }]),
      },
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
    await gh?.stop();
  });

  it('the sign-in page offers GitHub; one click through GitHub lands on the dashboard as the GitHub login', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(sys.api.url);
    const button = page.locator('#sign-in-github');
    await button.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await button.textContent()).toBe('Sign in with GitHub');
    await button.click();
    await page.locator('#who-name').filter({ hasText: 'octo-admin' }).waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).pathname).toBe('/');
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'pw_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookies.some((c) => c.name === 'pw_oauth_state')).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });
});
