import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { EndStatus, Operation, Outcome, Requester } from '@pullwright/core';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleRepo } from '../support/sample-repo.ts';
import { startTestSystem, TEST_TOKEN, type TestSystem } from '../support/test-runtime.ts';

/** Debian's chromium; CI installs it (see .ci/run). Override with CHROMIUM_PATH. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];
const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts/dashboard');
const ALICE = 'alice-dashboard-token-0123456789';
const BOB = 'bob-dashboard-token-0123456789ab';
/** Answers the page handles by design: signed out, no board yet (issue 5), a wrong token. */
const EXPECTED_REFUSALS: [number, RegExp][] = [
  [401, /^\/v1\/session$/],
  [404, /^\/v1\/board$/],
];
/** The machine is shared: give the page time to catch up before calling it a failure. */
const POLL = { timeout: 10_000, interval: 100 };
const LAPTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

describe('dashboard in a real browser', () => {
  let sys: TestSystem;
  let repo: string;
  let browser: Browser;
  const problems: string[] = [];
  let signingOut = false;

  beforeAll(async () => {
    // Fail loudly: a browser test that quietly does not run proves nothing.
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `chromium is not installed at ${CHROMIUM}: run \`apt-get install -y chromium\` (.ci/run does) or set CHROMIUM_PATH`,
      );
    }
    await mkdir(ARTIFACTS, { recursive: true });
    sys = await startTestSystem({
      env: { DASHBOARD_USERS: `alice:${ALICE},bob:${BOB}`, DASHBOARD_APPROVERS: 'alice', DEFAULT_REPO: 'acme/slugify' },
    });
    repo = await createSampleRepo(sys.runtime.localForge!);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  async function open(viewport = LAPTOP): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      // Failed loads are judged below, by URL; any other error is a bug or a CSP violation.
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource'))
        problems.push(`console: ${msg.text()}`);
    });
    page.on('response', (res) => {
      const { pathname } = new URL(res.url());
      // A request already in flight when the user signs out may come back 401: that is the sign-out working.
      if (signingOut && res.status() === 401) return;
      if (
        res.status() < 400 ||
        EXPECTED_REFUSALS.some(([status, route]) => res.status() === status && route.test(pathname))
      )
        return;
      problems.push(`${res.status()} ${res.request().method()} ${pathname}`);
    });
    return { context, page };
  }

  async function signIn(page: Page, token: string): Promise<void> {
    await page.goto(sys.api.url);
    await page.locator('#token').fill(token);
    await page.locator('#sign-in-form button[type=submit]').click();
  }

  /** Operations in other states, so the list shows what a busy day looks like. */
  async function seed(
    description: string,
    requester: Requester,
    path: Exclude<Operation['status'], EndStatus>[],
    outcome?: Outcome,
  ) {
    const op = await sys.runtime.store.create({
      type: description.startsWith('Add') ? 'implement' : 'fix',
      repo,
      baseBranch: 'main',
      description,
      requester,
    });
    for (const to of path) await sys.runtime.store.transition(op.id, to);
    if (outcome) await sys.runtime.store.end(op.id, outcome);
    return op.id;
  }

  it('refuses a wrong token and sets no session', async () => {
    const { context, page } = await open();
    await signIn(page, 'wrong-token-0123456789abcdef');
    await expect.poll(() => page.locator('#sign-in-error').textContent(), POLL).toBe('That token was not accepted.');
    expect(await context.cookies()).toEqual([]);
    expect(await page.locator('#nav').isHidden()).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'sign-in-refused.png') });
    await context.close();
  });

  it('signs in, starts an operation from the form, watches it reach awaiting_approval live, reads the diff, approves and sees it merged', async () => {
    const { context, page } = await open();
    await signIn(page, ALICE);
    await page.locator('#operations .notice').getByText('No operations yet').waitFor();
    expect(await page.locator('#who-name').textContent()).toBe('alice');
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'pw_session', httpOnly: true, sameSite: 'Strict' });

    await page.locator('a.btn', { hasText: 'New operation' }).first().click();
    await page.locator('#new-type').selectOption('debug');
    await page.locator('#new-repo').fill(repo);
    await page.locator('#new-description').fill('slugify keeps spaces\nOnly the first space becomes a dash.');
    await page.locator('#new-budget-turns').fill('30');
    await page.locator('#new-budget-wallMs').fill('10');
    await page.locator('#new-submit').click();
    await page.waitForURL(/#\/op\/[a-z0-9]+$/);
    const id = page.url().split('/').at(-1)!;
    // A marker that a reload would wipe: the status must change without one.
    await page.evaluate(() => {
      (globalThis as unknown as { stayed: boolean }).stayed = true;
    });

    await page.locator('#op-status [data-status="awaiting_approval"]').waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
    await page.locator('#timeline [data-to="awaiting_approval"]').waitFor();
    // The PR body's verification block, its HMAC checked by the server against the forge's copy.
    await page.locator('#op-verification', { hasText: 'Signed by Pullwright for the current head.' }).waitFor();
    expect(await page.locator('#op-checks .check-pass').count()).toBe(1);
    const op = await sys.runtime.store.get(id);
    expect(op.requester).toEqual({ source: 'dashboard', user: 'alice' });
    expect(op.budget).toEqual({ turns: 30, wallMs: 600_000 });
    expect(await page.locator('#budget').textContent()).toContain('30 turns');
    // The /debug evidence: the tests that failed before the change pass after it.
    expect(await page.locator('#op-evidence .tests-red li').count()).toBeGreaterThanOrEqual(1);
    await page.locator('#op-review').getByText('Accepted').waitFor();
    const head = op.pullRequest!.headSha;

    await page.locator('#tab-changes').click();
    const file = page.locator('.diff-file[data-path="src/slugify.js"]');
    await file.waitFor();
    expect(await file.locator('.diff-add .code').first().textContent()).toContain("split(/\\s+/).join('-')");
    expect(await file.locator('.diff-del .code').first().textContent()).toContain("replace(' ', '-')");
    expect(await page.locator('#approve').getAttribute('data-sha')).toBe(head);
    expect(await page.locator('#approve').textContent()).toBe(`Approve ${head.slice(0, 7)}`);
    await page.locator('#progress').getByText('Waiting for approval').waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'operation.png'), fullPage: true });
    await page.locator('#tab-overview').click();
    await page.screenshot({ path: path.join(ARTIFACTS, 'operation-overview.png'), fullPage: true });

    await page.locator('#tab-transcript').click();
    await page.locator('#transcript .tx-task').first().waitFor();
    expect(await page.locator('#transcript .tx-tool').count()).toBeGreaterThanOrEqual(3);
    await page.screenshot({ path: path.join(ARTIFACTS, 'operation-transcript.png'), fullPage: true });
    await page.locator('#tab-overview').click();

    await page.locator('#approve').click();
    await page.locator('#op-status [data-status="merged"]').waitFor({ timeout: 30_000 });
    expect((await sys.runtime.store.get(id)).approval).toMatchObject({
      by: 'alice',
      source: 'dashboard',
      headSha: head,
    });
    await page.locator('#timeline [data-to="merged"]').waitFor();
    // The lock board (GET /v1/board) is read for this repository: merged, nothing is held any more.
    await page.locator('#board', { hasText: 'holds no locks and overlaps no open branch' }).waitFor();
    expect(await page.locator('#actions button').count()).toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'operation-merged.png'), fullPage: true });

    // The list, with a few more operations in other states; it updates without a reload.
    await page.locator('a.brand').click();
    await page.locator(`#operations tr[data-id="${id}"][data-status="merged"]`).waitFor();
    await seed('Add a --dry-run flag to the release script', { source: 'slack', user: 'maria' }, ['running']);
    await seed('Fix flaky timeout in the payments webhook test', { source: 'github', user: 'octocat' }, ['running'], {
      code: 'checks_failed',
      detail: 'check "test" exited with 1:\nTimeout of 2000ms exceeded',
    });
    const queued = await seed('Retry the upload when S3 answers 503', { source: 'api', user: 'ci-bot' }, []);
    await page.locator(`#operations tr[data-id="${queued}"]`).waitFor();
    expect(await page.locator('#operations tr.op-row').count()).toBe(4);
    expect(await page.locator('#queue-health').textContent()).toContain('workers online');
    await page.screenshot({ path: path.join(ARTIFACTS, 'list.png'), fullPage: true });

    await page.locator('#filter-status').selectOption('failed');
    await expect.poll(() => page.locator('#operations tr.op-row').count(), POLL).toBe(1);
    await page.locator('#filter-status').selectOption('');
    await expect.poll(() => page.locator('#operations tr.op-row').count(), POLL).toBe(4);

    // The same pages on a phone.
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: path.join(ARTIFACTS, 'list-phone.png'), fullPage: true });
    await page.goto(`${sys.api.url}/#/op/${id}`);
    await page.locator('#op-status [data-status="merged"]').waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'operation-phone.png'), fullPage: true });

    signingOut = true;
    await page.locator('#sign-out').click();
    await page.locator('#sign-in-form').waitFor();
    expect(await context.cookies()).toEqual([]);
    await context.close();
    signingOut = false;
    expect(problems).toEqual([]);
  });

  it('keeps approve and reject from a user who is not an approver', async () => {
    const id = await seed('Bump lodash to 4.17.21', { source: 'api', user: 'ci-bot' }, ['running']);
    await sys.runtime.store.transition(id, 'awaiting_approval', {
      pullRequest: { number: 99, url: `${sys.api.url}/forge/pr/99`, headSha: 'c'.repeat(40) },
    });
    const { context, page } = await open();
    await signIn(page, BOB);
    await page.locator('#who-name').getByText('bob').waitFor();
    await page.goto(`${sys.api.url}/#/op/${id}`);
    await page.locator('#approve').waitFor();
    expect(await page.locator('#approve').isDisabled()).toBe(true);
    expect(await page.locator('#reject').isDisabled()).toBe(true);
    await page.getByText('bob is not on the approver list.').waitFor();
    await context.close();
  });

  it('signs in from the #token= link that npm start prints, then clears it from the address bar', async () => {
    const { context, page } = await open();
    await page.goto(`${sys.api.url}/#token=${TEST_TOKEN}`);
    await page.locator('#who-name').getByText('operator').waitFor();
    expect(page.url()).not.toContain(TEST_TOKEN);
    const [cookie] = await context.cookies();
    expect(cookie?.httpOnly).toBe(true);
    expect(await page.content()).not.toContain(TEST_TOKEN);
    await context.close();
  });

  it('shows the queue board at /admin/queues, with and without the trailing slash', async () => {
    await sys.runtime.queue.add('run', { opId: 'opqueueboardpage1' });
    const { context, page } = await open();
    await page.goto(`${sys.api.url}/#token=${TEST_TOKEN}`);
    await page.locator('#who-name').getByText('operator').waitFor();
    for (const url of [`${sys.api.url}/admin/queues`, `${sys.api.url}/admin/queues/`]) {
      await page.goto(url);
      // The board's script renders the queue's name; a blocked <base href> leaves it on "Loading".
      await page.getByText('code-operations').first().waitFor(POLL);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'queue-board.png') });
    await context.close();
  });
});
