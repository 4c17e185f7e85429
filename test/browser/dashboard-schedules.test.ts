import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, signedInPage } from '../support/dashboard-browser.ts';
import { startTestSystem, type TestSystem } from '../support/test-runtime.ts';

/** Issue 32 in the dashboard: the Schedules page lists schedules and event sources, and pauses a schedule. */

const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts/dashboard');
const ALICE = 'alice-dashboard-token-0123456789';
const POLL = { timeout: 15_000, interval: 100 };

describe('dashboard: schedules and event sources', () => {
  let sys: TestSystem;
  let browser: Browser;
  const problems: string[] = [];

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    sys = await startTestSystem({
      worker: false,
      env: {
        DASHBOARD_USERS: `alice:${ALICE}`,
        DEFAULT_REPO: 'acme/nightly',
        EVENT_SOURCES: JSON.stringify({
          sentry: { kind: 'sentry', secret: 'sentry-secret-0123456789abcdef', repo: 'acme/nightly' },
        }),
      },
    });
    await sys.runtime.localForge!.createRepository('acme/nightly', {
      '.pullwright.yml':
        'schedules:\n  flaky:\n    cron: "0 3 * * *"\n    type: implement\n    description: Find flaky tests\n',
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  it('reloads a repository’s schedules, shows the next run and the sources, and pauses and resumes', async () => {
    const page = await signedInPage(browser, sys.api.url, { user: 'alice', token: ALICE }, problems);
    await page.locator('#nav a', { hasText: 'Schedules' }).click();
    await page.waitForURL(/#\/schedules$/);
    await page.getByText('No schedules').waitFor();
    // The repository box is empty: the reload reads DEFAULT_REPO's file.
    await page.getByRole('button', { name: 'Reload .pullwright.yml' }).click();
    const row = page.locator('tr[data-schedule="acme/nightly/flaky"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('0 3 * * *');
    expect(await row.textContent()).toContain('Find flaky tests');
    expect(await row.locator('td').nth(3).textContent()).toBe('active');
    expect(await row.locator('td').nth(5).textContent()).not.toBe('—');
    expect(await page.locator('tr[data-source="sentry"]').textContent()).toContain('POST /v1/events/sentry');
    await page.screenshot({ path: path.join(ARTIFACTS, 'schedules.png') });

    await row.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => row.locator('td').nth(3).textContent(), POLL).toBe('paused');
    expect(await row.locator('td').nth(5).textContent()).toBe('—');
    expect(await sys.runtime.schedules.queue.getJobScheduler('acme/nightly/flaky')).toBeUndefined();
    await row.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => row.locator('td').nth(3).textContent(), POLL).toBe('active');
    expect((await sys.runtime.schedules.queue.getJobScheduler('acme/nightly/flaky'))?.pattern).toBe('0 3 * * *');
    expect(problems).toEqual([]);
  });
});
