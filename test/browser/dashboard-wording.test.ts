import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Operation } from '@pullwright/core';
import { DEMO_REPO, DEMO_REQUEST, DEMO_REVISION_REFUSAL } from '@pullwright/pipeline';
import { servicePolicy } from '@pullwright/policy';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleRepo } from '../support/sample-repo.ts';
import { startTestSystem, TEST_TOKEN, type TestSystem } from '../support/test-runtime.ts';

/** Debian's chromium; CI installs it (see .ci/run). Override with CHROMIUM_PATH. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];
const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts/dashboard-wording');
const LAPTOP = { width: 1366, height: 900 };
/** The machine is shared: give the page time to catch up before calling it a failure. */
const POLL = { timeout: 15_000, interval: 100 };
/** Names the pipeline records its steps under: the page says what they do instead. */
const CODE_WORDS = /\((started|finished)\)|merge_lock|update_from_base|\bpublish\b|\brelease\b|base_merge/;

/**
 * The dashboard as a first-time user sees it in demo mode (`npm start` without a key): the
 * demo operation's page in words, Request changes refused with the way out, the merge and its
 * commit, and the Deploy button only where a deploy is configured.
 */
describe('the dashboard in words, in a real browser (demo mode)', () => {
  let sys: TestSystem;
  let browser: Browser;
  let page: Page;
  let demoId: string;
  const problems: string[] = [];

  beforeAll(async () => {
    // Fail loudly: a browser test that quietly does not run proves nothing.
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `chromium is not installed at ${CHROMIUM}: run \`apt-get install -y chromium\` (.ci/run does) or set CHROMIUM_PATH`,
      );
    }
    await mkdir(ARTIFACTS, { recursive: true });
    sys = await startTestSystem({ demo: true });
    await createSampleRepo(sys.runtime.localForge!, DEMO_REPO);
    // What `npm start` seeds in demo mode.
    const { op } = await sys.runtime.store.createOnce('demo-sample-debug', DEMO_REQUEST);
    await sys.runtime.queue.add('run', { opId: op.id });
    demoId = op.id;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
    const context = await browser.newContext({ viewport: LAPTOP, deviceScaleFactor: 1 });
    page = await context.newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    await page.goto(sys.api.url);
    await page.locator('#token').fill(TEST_TOKEN);
    await page.locator('#sign-in-form button[type=submit]').click();
    await page.locator('#nav').waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  /** Each line's words, without its time. */
  const timeline = () => page.locator('#timeline li > :not(time)').allTextContents();
  const open = async (id: string) => {
    await page.goto(`${sys.api.url}/#/op/${id}`);
    await page.locator('#op-status').waitFor();
  };

  it('the demo operation: steps in words, the summary’s code set as code, Request changes refused with the way out', async () => {
    await open(demoId);
    await page.locator('#op-status [data-status="awaiting_approval"]').waitFor({ timeout: 60_000 });
    await expect.poll(timeline, POLL).toContain('Pull request published');
    const lines = await timeline();
    expect(lines.filter((l) => CODE_WORDS.test(l))).toEqual([]);
    expect(lines).toContain('Checks on the base branch done');
    expect(lines).toContain('Policy: 1 approval needed');
    expect(lines.filter((l) => /undefined/.test(l))).toEqual([]);
    expect(lines).toContain('All checks passed');

    // The model's summary quotes code in backticks: shown as code, no backtick left.
    const summary = page.locator('#op-summary .summary-text');
    expect(await summary.locator('code').count()).toBeGreaterThanOrEqual(1);
    expect(await summary.textContent()).not.toContain('`');

    // The box sits below the title, inside the header card, as wide as the card's content.
    const header = (await page.locator('header.op-header').boundingBox())!;
    const box = (await page.locator('#revise-text').boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(header.x);
    expect(box.x + box.width).toBeLessThanOrEqual(header.x + header.width);
    expect(box.width).toBeGreaterThan(header.width * 0.8);
    await page.screenshot({ path: path.join(ARTIFACTS, 'demo-awaiting-approval.png'), fullPage: true });

    const head = (await sys.runtime.store.get(demoId)).pullRequest!.headSha;
    await page.locator('#revise-text').fill('Also trim dashes at both ends');
    await page.locator('#revise-send').click();
    await page.locator('.flash-bad', { hasText: DEMO_REVISION_REFUSAL }).waitFor();
    const op = await sys.runtime.store.get(demoId);
    expect(op.status).toBe('awaiting_approval');
    expect(op.pullRequest!.headSha).toBe(head);
    expect((await sys.runtime.events.list(demoId)).some((e) => e.type === 'revision')).toBe(false);
    await page.screenshot({ path: path.join(ARTIFACTS, 'demo-request-changes-refused.png'), fullPage: true });
  });

  it('approved and merged: the merge steps in words, the merge commit shown, no Deploy button without a deploy', async () => {
    await open(demoId);
    await page.locator('#approve').click();
    await page.locator('#op-status [data-status="merged"]').waitFor({ timeout: 60_000 });
    const merged = await sys.runtime.store.get(demoId);
    const sha = merged.mergeSha!.slice(0, 7);
    expect(merged.mergeSha).toMatch(/^[0-9a-f]{40}$/);
    await expect.poll(() => page.locator('#merge-sha').textContent(), POLL).toBe(`merged as ${sha}`);
    await expect.poll(timeline, POLL).toContain(`Merged as ${sha}`);
    const lines = await timeline();
    expect(lines).toContain('Merge lock taken');
    expect(lines).toContain('Pull request merged');
    expect(lines.filter((l) => CODE_WORDS.test(l))).toEqual([]);
    expect(merged.policy?.deploy).toBeUndefined();
    expect(await page.locator('#deploy').count()).toBe(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'demo-merged.png'), fullPage: true });
  });

  it('offers Deploy on a merged operation whose policy configures one', async () => {
    const op = await seed(['running', 'awaiting_approval', 'approved', 'merging', 'merged']);
    await sys.runtime.store.patch(
      op.id,
      {
        policy: {
          ...servicePolicy({}),
          deploy: {
            target: { kind: 'webhook', url: 'https://deploy.example/hook' },
            on_merge: false,
            status: { poll_ms: 1000, timeout_ms: 60_000 },
          },
        },
      },
      { type: 'checkpoint', data: { step: 'policy' } },
    );
    await open(op.id);
    await page.locator('#op-status [data-status="merged"]').waitFor();
    await page.locator('#deploy').waitFor();
    expect(await page.locator('#deploy').textContent()).toBe('Deploy');
  });

  it('a plan waiting for a person: "Now" says it waits for approval, and the decision takes the card’s width', async () => {
    const op = await seed(['running']);
    const since = new Date().toISOString();
    await sys.runtime.store.patch(
      op.id,
      { planConfirmation: { state: 'pending', since } },
      { type: 'plan_confirmation', data: { state: 'pending' } },
    );
    await open(op.id);
    await page.locator('#plan-decision').waitFor();
    await expect
      .poll(() => page.locator('#progress .step').textContent(), POLL)
      .toBe('Waiting for approval of the plan');
    const header = (await page.locator('header.op-header').boundingBox())!;
    const note = (await page.locator('#plan-note').boundingBox())!;
    expect(note.width).toBeGreaterThan(header.width * 0.8);
    await page.screenshot({ path: path.join(ARTIFACTS, 'plan-waiting.png'), fullPage: true });
  });

  it('the list and the form: queue words an operator uses, a plan checkbox of its own size', async () => {
    await page.goto(`${sys.api.url}/#/`);
    const health = page.locator('#queue-health');
    await health.waitFor();
    const words = await health.locator('.stat-label').allTextContents();
    expect(words).toEqual(['waiting', 'running', 'scheduled', 'jobs given up', 'workers online', 'oldest waiting']);
    await page.goto(`${sys.api.url}/#/new`);
    const box = (await page.locator('#new-confirm-plan').boundingBox())!;
    expect(box.width).toBeLessThan(40);
    await page.screenshot({ path: path.join(ARTIFACTS, 'new-operation.png'), fullPage: true });
    expect(problems).toEqual([]);
  });

  /** An operation in the given states, recorded without a worker (no job is queued for it); `merged` ends it. */
  async function seed(path: (Parameters<typeof sys.runtime.store.transition>[1] | 'merged')[]): Promise<Operation> {
    const { store } = sys.runtime;
    const op = await store.create({ ...DEMO_REQUEST, description: 'A seeded operation' });
    for (const to of path) {
      const headSha = 'a'.repeat(40);
      if (to === 'merged') {
        await store.end(op.id, { code: 'merged' });
        continue;
      }
      await store.transition(
        op.id,
        to,
        to === 'awaiting_approval'
          ? { pullRequest: { number: 99, url: `${sys.api.url}/forge/x/pulls/99`, headSha } }
          : {},
      );
    }
    return store.get(op.id);
  }
});
