import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ScriptedModel } from '@pullwright/agent/testing';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnswerRepo, GIVES_UP, TWO_REPAIRS, TWO_REPAIRS_RECORD } from '../support/answer-repo.ts';
import { startTestSystem, type TestSystem } from '../support/test-runtime.ts';
import { waitForStatus } from '../support/wait-for-status.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts/dashboard');
const ALICE = 'alice-record-token-0123456789abc';
/** The machine is shared: give the page time to catch up before calling it a failure. */
const POLL = { timeout: 10_000, interval: 100 };

describe('the run record and the failure report in the dashboard', () => {
  let sys: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `chromium is not installed at ${CHROMIUM}: run \`apt-get install -y chromium\` (.ci/run does) or set CHROMIUM_PATH`,
      );
    }
    await mkdir(ARTIFACTS, { recursive: true });
    sys = await startTestSystem({ env: { DASHBOARD_USERS: `alice:${ALICE}`, MAX_REPAIRS: '3' } });
    sys.runtime.createProvider = (op) =>
      new ScriptedModel(op.repo.endsWith('-fails') ? GIVES_UP : TWO_REPAIRS, 'replay:record');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  it('lists the numbered artifacts in order and downloads one; shows a failed operation’s report', async () => {
    const repo = await createAnswerRepo(sys.runtime.localForge!, 'acme/record-ui');
    const created = await sys.request('POST', '/v1/operations', {
      type: 'fix',
      repo,
      description: 'Make the answer test pass',
    });
    const { id } = (await created.json()) as { id: string };
    await waitForStatus(sys, id, ['awaiting_approval']);

    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    await page.goto(sys.api.url);
    await page.locator('#token').fill(ALICE);
    await page.locator('#sign-in-form button[type=submit]').click();
    await page.locator('#who-name').getByText('alice').waitFor();
    await page.goto(`${sys.api.url}/#/op/${id}`);

    const items = page.locator('#op-run-record li');
    await expect.poll(() => items.count(), POLL).toBe(19);
    const names = await items.evaluateAll((lis) => lis.map((li) => li.getAttribute('data-name')));
    expect(names.slice(0, TWO_REPAIRS_RECORD.length)).toEqual(TWO_REPAIRS_RECORD);
    expect(await page.locator('#op-run-record li[data-name="005-test.txt"]').textContent()).toContain(
      'check run: test',
    );
    // The plan card names the plan and its tasks by their stable ids.
    await page.locator('#op-plan').getByText('plan_0001').waitFor();
    expect(await page.locator('#op-plan li[data-task="T1"] strong').textContent()).toBe('T1 · Fix the answer');
    // The fixer's strict JSON, as the timeline shows it.
    await page.locator('#timeline').getByText('Fixer round 2: fixed, build pass').waitFor();

    const download = page.waitForEvent('download');
    await page.locator('#op-run-record a', { hasText: '009-test.txt' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe(`${id}-009-test.txt`);
    const saved = path.join(ARTIFACTS, file.suggestedFilename());
    await file.saveAs(saved);
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(saved, 'utf8')).toMatch(/^check: test\n[\s\S]*actual: 43/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'run-record.png'), fullPage: true });

    // A failed operation (the fixer gives up): its report, section by section, the trace under its issue.
    const failedRepo = await createAnswerRepo(sys.runtime.localForge!, 'acme/record-ui-fails');
    const failing = await sys.request('POST', '/v1/operations', {
      type: 'fix',
      repo: failedRepo,
      description: 'Make the answer test pass',
    });
    const failed = (await failing.json()) as { id: string };
    await waitForStatus(sys, failed.id, ['failed']);
    await page.goto(`${sys.api.url}/#/op/${failed.id}`);
    const report = page.locator('#op-failure-report');
    await report.locator('h4', { hasText: 'Recommendation' }).waitFor();
    expect(await report.locator('h4').allTextContents()).toEqual([
      'Summary',
      'Issues',
      'Partial changes',
      'Recommendation',
    ]);
    expect(await report.locator('li pre').textContent()).toMatch(
      /^not ok 2 - answer is 44\n {2}expected: 44\n {2}actual: 42/,
    );
    expect(await report.locator('pre').last().textContent()).toContain('+export const answer = 42;');
    await page.screenshot({ path: path.join(ARTIFACTS, 'failure-report.png'), fullPage: true });
    await context.close();
    expect(problems).toEqual([]);
  });
});
