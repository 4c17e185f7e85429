import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel, text, tool } from '../support/scripted-model.ts';
import { startTestSystem, type TestSystem } from '../support/test-runtime.ts';
import { waitForStatus } from '../support/wait-for-status.ts';

/**
 * Issue 21 in the dashboard: the feature-request view (capture, triage, Implement, released)
 * and the operation fields on the New operation form.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];
const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts/dashboard');
const ALICE = 'alice-dashboard-token-0123456789';
const POLL = { timeout: 15_000, interval: 100 };
const ANALYSIS = {
  intent: 'Callers want the answer to be 42.',
  affectedModules: ['src/app.js'],
  priority: 'low',
  acceptanceCriteria: ['answer is 42'],
};

describe('dashboard: feature requests and operation fields', () => {
  let sys: TestSystem;
  let browser: Browser;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`chromium is not installed at ${CHROMIUM}: set CHROMIUM_PATH`);
    await mkdir(ARTIFACTS, { recursive: true });
    sys = await startTestSystem({ env: { DASHBOARD_USERS: `alice:${ALICE}`, MAX_REPAIRS: '0' } });
    await sys.runtime.localForge!.createRepository('acme/answers', {
      'package.json': JSON.stringify({ name: 'answers', type: 'module', scripts: { test: 'node test.js' } }),
      'src/app.js': 'export const answer = 41;\n',
      'test.js': "import { answer } from './src/app.js';\nif (typeof answer !== 'number') process.exit(1);\n",
    });
    sys.runtime.createProvider = (subject) =>
      subject.id.startsWith('fr')
        ? new ScriptedModel([text(JSON.stringify(ANALYSIS))])
        : new ScriptedModel([
            text(
              JSON.stringify({
                summary: 'Answer 42',
                steps: [{ title: 'Edit', files: ['src/app.js'], acceptance: 'answer is 42' }],
              }),
            ),
            tool('edit_file', { path: 'src/app.js', oldText: 'answer = 41', newText: 'answer = 42' }),
            text('Edited.'),
            text(JSON.stringify({ decision: 'accept', reasons: ['small'] })),
          ]);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  async function open(): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(msg.text());
    });
    page.on('response', (res) => {
      const { pathname } = new URL(res.url());
      if (res.status() >= 400 && pathname !== '/v1/session' && pathname !== '/v1/board')
        problems.push(`${res.status()} ${res.request().method()} ${pathname}`);
    });
    await page.goto(sys.api.url);
    await page.locator('#token').fill(ALICE);
    await page.locator('#sign-in-form button[type=submit]').click();
    await page.locator('#who-name').getByText('alice').waitFor();
    return page;
  }

  it('captures a request, shows the analysis, triages it, implements it and shows it released with its PR', async () => {
    const page = await open();
    await page.locator('#nav a', { hasText: 'Feature requests' }).click();
    await page.waitForURL(/#\/features$/);
    await page.locator('#features .notice').getByText('No feature requests yet').waitFor();
    await page.locator('#feature-repo').fill('acme/answers');
    await page.locator('#feature-description').fill('Make the answer 42\nEverything downstream expects 42.');
    await page.locator('#feature-submit').click();
    await page.waitForURL(/#\/features\/fr[a-z0-9]+$/);
    const id = page.url().split('/').at(-1)!;

    // The analysis arrives from the worker without a reload.
    await expect
      .poll(() => page.locator('#feature-criteria-list li').allTextContents(), POLL)
      .toEqual(['answer is 42']);
    expect(await page.locator('#feature-analysis').textContent()).toContain('Callers want the answer to be 42.');
    await page.locator('#feature-priority').selectOption('high');
    await page.locator('#feature-criteria').fill('answer is 42\nthe test passes');
    await page.locator('#feature-accept').click();
    await expect
      .poll(() => page.locator('#feature-title [data-status]').getAttribute('data-status'), POLL)
      .toBe('accepted');
    expect(await sys.runtime.features.get(id)).toMatchObject({
      priority: 'high',
      acceptanceCriteria: ['answer is 42', 'the test passes'],
      triage: { decision: 'accepted', by: 'alice' },
    });
    await page.screenshot({ path: path.join(ARTIFACTS, 'feature-request-triaged.png') });

    await page.locator('#feature-implement').click();
    await page.waitForURL(/#\/op\/[a-z0-9]+$/);
    const opId = page.url().split('/').at(-1)!;
    const op = await waitForStatus(sys, opId, ['awaiting_approval', 'failed']);
    expect(op).toMatchObject({
      requester: { source: 'dashboard', user: 'alice' },
      priority: 'high',
      featureContext: { featureRequestId: id, acceptanceCriteria: ['answer is 42', 'the test passes'] },
    });
    await sys.runtime.actions.approve(opId, { user: 'alice', source: 'dashboard' }, op.pullRequest!.headSha);
    await waitForStatus(sys, opId, ['merged']);

    await page.goto(`${sys.api.url}/#/features/${id}`);
    await expect
      .poll(() => page.locator('#feature-title [data-status]').getAttribute('data-status'), POLL)
      .toBe('released');
    expect(await page.locator('#feature-pr').getAttribute('href')).toBe(op.pullRequest!.url);
    await page.goto(`${sys.api.url}/#/features`);
    await expect
      .poll(() => page.locator(`#feature-list tr[data-id="${id}"] [data-status]`).textContent(), POLL)
      .toBe('Released');
    await page.screenshot({ path: path.join(ARTIFACTS, 'feature-requests.png') });
    expect(problems).toEqual([]);
  });

  it('the New operation form sends the priority and the target files', async () => {
    const page = await open();
    await page.locator('a.btn', { hasText: 'New operation' }).first().click();
    await page.locator('#new-type').selectOption('implement');
    await page.locator('#new-repo').fill('acme/answers');
    await page.locator('#new-description').fill('Make the answer 42');
    await page.locator('details.more summary').click();
    await page.locator('#new-priority').selectOption('critical');
    await page.locator('#new-targetFiles').fill('src/app.js\n  docs/answer.md  \n');
    await page.locator('#new-submit').click();
    await page.waitForURL(/#\/op\/[a-z0-9]+$/);
    const op = await sys.runtime.store.get(page.url().split('/').at(-1)!);
    expect(op).toMatchObject({ priority: 'critical', targetFiles: ['src/app.js', 'docs/answer.md'] });
    expect(problems).toEqual([]);
  });
});
