import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];

/** Headless chromium for the dashboard tests; fails naming the fix when it is not installed. */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `chromium is not installed at ${CHROMIUM}: run \`apt-get install -y chromium\` or set CHROMIUM_PATH`,
    );
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

/**
 * A page signed in to the dashboard at `url` with a DASHBOARD_USERS token. Page errors and
 * failed requests (but the session probe before sign-in) go to `problems`.
 */
export async function signedInPage(
  browser: Browser,
  url: string,
  who: { user: string; token: string },
  problems: string[],
): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('response', (res) => {
    const { pathname } = new URL(res.url());
    if (res.status() >= 400 && !(res.status() === 401 && pathname === '/v1/session'))
      problems.push(`${res.status()} ${res.request().method()} ${pathname}`);
  });
  await page.goto(url);
  await page.locator('#token').fill(who.token);
  await page.locator('#sign-in-form button[type=submit]').click();
  await page.locator('#who-name').getByText(who.user).waitFor();
  return page;
}
