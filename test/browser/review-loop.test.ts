import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ReplayProvider, ReplayTranscript } from '@pullwright/agent';
import type { Operation, OperationEventInput } from '@pullwright/core';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleRepo } from '../support/sample-repo.ts';
import { startTestSystem, type TestSystem } from '../support/test-runtime.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DOCS = path.resolve(import.meta.dirname, '../../docs');
const ALICE = 'alice-review-token-0123456789abc';
const POLL = { timeout: 20_000, interval: 100 };

/** The revision the dashboard's Request changes box asks for: one new file. */
const REVISION = ReplayTranscript.parse({
  model: 'replay:dashboard-revision',
  turns: [
    { content: [{ type: 'tool_use', name: 'write_file', input: { path: 'docs/usage.md', content: 'Usage\n' } }] },
    {
      content: [
        { type: 'text', text: '{"replies":[{"comment":"C1","outcome":"fixed","note":"Added docs/usage.md."}]}' },
      ],
    },
  ],
});

/** Every event type the pipeline writes that the timeline shows, with the data it carries. */
const EVENTS: OperationEventInput[] = [
  { type: 'step', data: { step: 'verify', state: 'finished', passed: true } },
  { type: 'phase', data: { phase: 'review' } },
  {
    type: 'model',
    data: { role: 'reviewer', turn: 1, text: '{"decision":"accept","reasons":["small and tested"]}', toolCalls: [] },
  },
  {
    type: 'model',
    data: {
      role: 'reviewer',
      turn: 2,
      text: '{"decision":"request_changes","must_fix":["handle tabs"]}',
      toolCalls: [],
    },
  },
  {
    type: 'model',
    data: { role: 'planner', turn: 3, text: '{"summary":"Split on whitespace","steps":[{"title":"fix"', toolCalls: [] },
  },
  { type: 'tool', data: { role: 'coder', name: 'read_file', summary: 'src/a.js', isError: false } },
  { type: 'evidence', data: { reproduced: true, red: ['t'], green: ['t'] } },
  { type: 'check', data: { name: 'test', passed: true, exitCode: 0, durationMs: 12 } },
  { type: 'message', data: { from: 'alice', source: 'dashboard', text: 'look here' } },
  { type: 'cancel_requested', data: { by: 'alice' } },
  { type: 'retried', data: { by: 'alice', retryId: 'abcdef123456' } },
  { type: 'retry_of', data: { by: 'alice', opId: 'abcdef123456' } },
  {
    type: 'approval',
    data: { by: 'alice', identity: 'alice', source: 'dashboard', role: 'approver', headSha: 'a'.repeat(40) },
  },
  { type: 'approval_pending', data: { missing: ['1 more approval'], approvals: 1 } },
  { type: 'risk', data: { level: 'low', reasons: [] } },
  { type: 'waiting', data: { files: ['src/a.js'], holder: 'other' } },
  { type: 'locks_acquired', data: { files: ['src/a.js'] } },
  { type: 'overlap', data: { branches: ['agent/other'], files: ['src/a.js'] } },
  { type: 'base_merged', data: { baseSha: 'd'.repeat(40), headSha: 'e'.repeat(40), checks: [] } },
  { type: 'plan_confirmation', data: { state: 'modified', by: 'alice', note: 'keep the API' } },
  { type: 'auto_approval', data: { approved: false } },
  { type: 'deploy', data: { step: 'started', target: 'webhook', by: 'dee' } },
  { type: 'deploy', data: { step: 'rolled_back' } },
  { type: 'sandbox', data: { runner: 'bubblewrap', sandboxed: true } },
  { type: 'revision', data: { state: 'requested', requestId: 'r1', requests: 2 } },
  { type: 'revision', data: { state: 'pushed', requestId: 'r1', headSha: 'b'.repeat(40), changed: true } },
  { type: 'head_moved', data: { by: 'bob', headSha: 'c'.repeat(40) } },
  { type: 'slack_session', data: { channel: 'C1', user: 'U1' } },
  { type: 'slack_thread', data: { channel: 'C1', ts: '1.2' } },
];

describe('dashboard: the review loop in a real browser', () => {
  let sys: TestSystem;
  let repo: string;
  let browser: Browser;
  let hook: Server;
  let scratch: string;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`chromium is not installed at ${CHROMIUM}: set CHROMIUM_PATH`);
    // A deploy target that takes the deploy and reports success.
    hook = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(req.url === '/deploy' ? { id: 'd1', status: 'queued' } : { status: 'success' }));
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const address = hook.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    scratch = mkdtempSync(path.join(os.tmpdir(), 'pw-browser-review-'));
    const policy = path.join(scratch, 'policy.yml');
    writeFileSync(
      policy,
      `allow: { deploy_hosts: [127.0.0.1] }\ndeploy:\n  on_merge: false\n  target: { kind: webhook, url: '${base}/deploy' }\n  status: { url: '${base}/status/{id}', poll_ms: 100, timeout_ms: 5000 }\n`,
    );
    sys = await startTestSystem({
      env: {
        DASHBOARD_USERS: `alice:${ALICE}`,
        DASHBOARD_APPROVERS: 'alice',
        POLICY_FILE: policy,
        DEPLOY_WEBHOOK_SECRET: 'deploy-secret-for-browser-tests',
      },
    });
    repo = await createSampleRepo(sys.runtime.localForge!);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
    await new Promise<void>((r) => (hook ? hook.close(() => r()) : r()));
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  async function signedIn(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('response', (res) => {
      const { pathname } = new URL(res.url());
      if (res.status() >= 400 && !(res.status() === 401 && pathname === '/v1/session'))
        problems.push(`${res.status()} ${res.request().method()} ${pathname}`);
    });
    await page.goto(sys.api.url);
    await page.locator('#token').fill(ALICE);
    await page.locator('#sign-in-form button[type=submit]').click();
    await page.locator('#who-name').getByText('alice').waitFor();
    return page;
  }

  const store = () => sys.runtime.store;
  /** An operation put straight into the store: the page is what is tested, not the pipeline. */
  const seeded = (description: string) =>
    store().create({ type: 'fix', repo, baseBranch: 'main', description, requester: { source: 'api', user: 'ci' } });
  const until = async (id: string, done: (op: Operation) => boolean) => {
    await expect.poll(async () => done(await store().get(id)), POLL).toBe(true);
    return store().get(id);
  };

  it('asks for the plan, takes a message for the model, Modify goes on; the PR link, the Verification card on first open, Request changes and the interdiff', async () => {
    const page = await signedIn();
    await page.goto(`${sys.api.url}/#/new`);
    await page.locator('#new-type').selectOption('debug');
    await page.locator('#new-repo').fill(repo);
    await page.locator('#new-description').fill('slugify keeps spaces');
    await page.locator('#new-confirm-plan').check();
    await page.locator('#new-submit').click();
    await page.waitForURL(/#\/op\/[a-z0-9]+$/);
    const id = page.url().split('/').at(-1)!;
    expect((await store().get(id)).confirmPlan).toBe(true);

    // The plan waits: the message box and Start / Modify / Cancel.
    await page.locator('#plan-decision').waitFor(POLL);
    await page.locator('#message-text').fill('The bug is in the split: look at src/slugify.js first.');
    await page.locator('#message-send').click();
    await page.locator('.flash-good', { hasText: 'Sent' }).waitFor();
    await page.screenshot({ path: path.join(DOCS, 'dashboard-plan-confirmation.png'), fullPage: true });
    await page.locator('#plan-modify').click();
    expect(await page.locator('#plan-note').getAttribute('aria-invalid')).toBe('true');
    await page.locator('#plan-note').fill('Keep the function name.');
    await page.locator('#plan-modify').click();
    const ready = await until(id, (o) => o.status === 'awaiting_approval' || o.status === 'failed');
    expect(ready.status, ready.error).toBe('awaiting_approval');
    expect(ready.planConfirmation).toMatchObject({ state: 'modified', by: 'alice', note: 'Keep the function name.' });
    // The message reached the model: it is in what the model was sent.
    expect(await sys.transcript(id)).toContain('look at src/slugify.js first');
    await page.locator('#timeline [data-type="message"]').waitFor(POLL);

    // A fresh page: the Verification card is checked on first open, not only after a status change.
    const fresh = await signedIn();
    await fresh.goto(`${sys.api.url}/#/op/${id}`);
    await fresh.locator('#op-verification', { hasText: 'Signed by Pullwright for the current head.' }).waitFor(POLL);

    // The PR link (a new tab) opens the operation's Changes tab, not the forge's JSON.
    const [tab] = await Promise.all([fresh.waitForEvent('popup'), fresh.locator('.pr-link').click()]);
    await tab.waitForURL(new RegExp(`#/op/${id}\\?tab=changes$`));
    await tab.locator('.diff-file[data-path="src/slugify.js"]').waitFor(POLL);
    await tab.close();

    // Request changes from the dashboard: a revision; the ledger and "since last review" show it.
    const h1 = ready.pullRequest!.headSha;
    const original = sys.runtime.createProvider;
    sys.runtime.createProvider = () => new ReplayProvider(REVISION);
    await fresh.locator('#revise-text').fill('Document the usage in docs/usage.md');
    await fresh.locator('#revise-send').click();
    const revised = await until(id, (o) => o.status === 'awaiting_approval' && o.pullRequest!.headSha !== h1);
    sys.runtime.createProvider = original;
    expect(revised.ledger?.[0]).toMatchObject({
      state: 'pushed',
      fromSha: h1,
      entries: [{ source: 'dashboard', user: 'alice', text: 'Document the usage in docs/usage.md', outcome: 'fixed' }],
    });
    await fresh.locator('#tab-changes').click();
    await fresh.locator('#ledger .ledger-entry[data-outcome="fixed"]').waitFor(POLL);
    await fresh.locator('#diff-since').click();
    await fresh.locator('#diff-range', { hasText: `since ${h1.slice(0, 7)}` }).waitFor(POLL);
    expect(
      await fresh
        .locator('#diff-body .diff-file')
        .evaluateAll((els) => els.map((e) => (e as unknown as { dataset: { path: string } }).dataset.path)),
    ).toEqual(['docs/usage.md']);
    await fresh.screenshot({ path: path.join(DOCS, 'dashboard-interdiff.png'), fullPage: true });
    await fresh.locator('#diff-all').click();
    await fresh.locator('.diff-file[data-path="src/slugify.js"]').waitFor(POLL);
    // The link the tracking comment and Slack give after a revision opens that interdiff.
    const linked = await signedIn();
    await linked.goto(`${sys.api.url}/#/op/${id}?tab=changes&from=${h1}`);
    await linked.locator('#diff-range', { hasText: `since ${h1.slice(0, 7)}` }).waitFor(POLL);
    expect(await linked.locator('#diff-body .diff-file').count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it('plan Start from the dashboard starts the coder', async () => {
    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
      confirmPlan: true,
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const page = await signedIn();
    await page.goto(`${sys.api.url}/#/op/${id}`);
    await page.locator('#plan-start').click(POLL);
    const done = await until(id, (o) => o.status === 'awaiting_approval' || o.status === 'failed');
    expect(done.planConfirmation).toMatchObject({ state: 'started', by: 'alice' });
    await page.locator('#timeline', { hasText: 'Plan started by alice' }).waitFor(POLL);
  });

  it('deploys a merged operation from the Deploy button, with its progress on the timeline', async () => {
    const op = await seeded('deploy me');
    for (const to of ['running', 'awaiting_approval', 'approved', 'merging'] as const)
      await store().transition(op.id, to);
    await store().end(op.id, { code: 'merged' });
    const page = await signedIn();
    await page.goto(`${sys.api.url}/#/op/${op.id}`);
    await page.locator('#deploy').click(POLL);
    await page.locator('#deploy-status', { hasText: 'Deployed · webhook · by alice' }).waitFor(POLL);
    await page.locator('#timeline', { hasText: 'Deploy to webhook started by alice' }).waitFor(POLL);
    await page.locator('#timeline', { hasText: 'Deployed' }).waitFor(POLL);
    expect((await store().get(op.id)).deploy).toMatchObject({ status: 'succeeded', by: 'alice' });
  });

  it('names every event type in the timeline: no raw type names, no raw JSON', async () => {
    const op = await seeded('every event');
    // Each entry pairs a type with its data; the compiler cannot follow that pairing through the loop.
    for (const e of EVENTS) await sys.runtime.events.append(op.id, e.type, e.data as never);
    const page = await signedIn();
    await page.goto(`${sys.api.url}/#/op/${op.id}`);
    await expect.poll(() => page.locator('#timeline li').count(), POLL).toBe(EVENTS.length + 1);
    const rows = await page
      .locator('#timeline li')
      .evaluateAll((els) =>
        els.map((e) => [(e as unknown as { dataset: { type: string } }).dataset.type, e.textContent ?? '']),
      );
    for (const [type, text] of rows) {
      const line = text.replace(/^\d\d:\d\d:\d\d/, '');
      expect(line, type).not.toBe(type);
      expect(line, type).not.toMatch(/[{}]/);
    }
    const texts = rows.map(([, t]) => t).join('\n');
    expect(texts).toContain('Reviewer · turn 1: accepted the change');
    expect(texts).toContain('Reviewer · turn 2: asked for changes: handle tabs');
    expect(texts).toContain('Planner · turn 3: proposed a plan: Split on whitespace');
    expect(texts).toContain('Revision pushed bbbbbbb');
    expect(texts).toContain('Deploy rolled back');
  });
});
