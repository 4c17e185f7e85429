import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ModelProvider, ModelRequest, ModelResponse } from '@pullwright/agent';
import { KEPT_DIFF_ARTIFACT } from '@pullwright/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Reply, type Turn, text, tool } from './support/scripted-model.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForFeatureRequest } from './support/wait-for-feature-request.ts';
import { waitForOperation, waitForStatus } from './support/wait-for-status.ts';

/**
 * Issue 32's budget contracts, driven through the API and a worker: an estimate before the
 * agent starts, a pause at 80 % of the cost budget that a person extends or stops, and the
 * policy's daily cap per repository, counted on every path that spends (a red-CI retry too)
 * and refused at the door with the time it resets.
 */

const MODEL = 'budget-contract-model';
// Every call costs $0.10: ten input tokens at $10,000 per million (LLM_PRICES below).
const CALL_USD = 0.1;
const PRICES = JSON.stringify({ [MODEL]: { input: 10_000, output: 0 } });

const PLAN = text(
  JSON.stringify({
    summary: 'Change the answer',
    steps: [{ title: 'Edit the answer', files: ['src/app.js'], acceptance: 'tests pass' }],
  }),
);
const EDIT = tool('edit_file', { path: 'src/app.js', oldText: 'answer = 41', newText: 'answer = 42' });
const READ = tool('read_file', { path: 'src/app.js' });
const ACCEPT = text(JSON.stringify({ decision: 'accept', reasons: ['small and tested'] }));
/** Five model calls: planner, three coder turns, reviewer. */
const FIVE_TURNS: Turn[] = [PLAN, EDIT, READ, text('Edited.'), ACCEPT];
/** Between turn 2 ($0.20) and turn 3 ($0.30): 80 % of it is $0.28, crossed by the third call. */
const BUDGET_USD = 0.35;

/** Plays turns in order at a priced model, so the operation's cost grows by CALL_USD a call. */
class PricedModel implements ModelProvider {
  readonly name = 'priced-script';
  #next = 0;
  constructor(private readonly turns: Turn[]) {}
  async complete(request: ModelRequest): Promise<ModelResponse> {
    const turn = this.turns[this.#next++] ?? text('No more turns.');
    const content: Reply = typeof turn === 'function' ? await turn(request) : turn;
    return {
      content,
      stopReason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      usage: { inputTokens: 10, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      model: MODEL,
    };
  }
}

let sys: TestSystem;
let scratch: string;
let seq = 0;
/** The first test's repository: it spent $1.00 today, past the service policy's repository cap. */
let spentRepo: string;
const scripts = new Map<string, Turn[][]>();

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'pw-budget-policy-'));
  const policyFile = path.join(scratch, 'service-policy.yml');
  // $0.90 per repository and day for every repository: above what each test below spends
  // before its last operation, so only the first repository (two runs, $1.00) is past it.
  writeFileSync(policyFile, 'budgets: { repository_daily_usd: 0.9 }\n');
  sys = await startTestSystem({
    env: { MAX_REPAIRS: '0', MAX_TURNS: '40', LLM_PRICES: PRICES, POLICY_FILE: policyFile },
  });
  sys.runtime.createProvider = (op) => new PricedModel(scripts.get(op.repo)?.shift() ?? []);
}, 60_000);

afterAll(async () => {
  await sys?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function createRepo(policy: string): Promise<string> {
  const repo = `acme/budget${++seq}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-budget-'));
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'budget', type: 'module', scripts: { test: 'node test.js' } }),
    'src/app.js': 'export const answer = 41;\n',
    'test.js': "import { answer } from './src/app.js';\nif (typeof answer !== 'number') process.exit(1);\n",
    '.pullwright.yml': policy,
  };
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  await sys.runtime.localForge!.createRepository(repo, {}, { fromDir: dir });
  rmSync(dir, { recursive: true, force: true });
  return repo;
}

async function createOperation(repo: string, costUsd?: number): Promise<string> {
  const res = await sys.request('POST', '/v1/operations', {
    type: 'implement',
    repo,
    description: 'Change the answer',
    ...(costUsd ? { budget: { costUsd } } : {}),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

/** Until the operation pauses at its threshold. */
const paused = (id: string) => waitForOperation(sys, id, (op) => op.budgetContract?.pause?.state === 'pending');

const usd = (n: number) => Math.round(n * 1e6) / 1e6;

describe('budget contracts', () => {
  it('pauses at 80 % after the third call of five; an extend from the API lets it finish to a PR', async () => {
    const repo = await createRepo('budgets:\n  estimate_usd: 0.4\n');
    spentRepo = repo;
    scripts.set(repo, [FIVE_TURNS]);
    const id = await createOperation(repo, BUDGET_USD);
    const op = await paused(id);
    // The estimate came before the agent: the policy's default, since the repository has no history.
    expect(op.budgetContract).toMatchObject({ estimateUsd: 0.4, estimateBasis: 'policy', estimateSamples: 0 });
    expect(op.usage.modelCalls).toBe(3);
    expect(op.budgetContract?.pause).toMatchObject({ state: 'pending', limitUsd: BUDGET_USD });
    expect(usd(op.budgetContract!.pause!.spentUsd)).toBe(usd(3 * CALL_USD));

    // Bad answers are refused naming the field; the operation still waits.
    const noAmount = await sys.request('POST', `/v1/operations/${id}/budget`, { action: 'extend' });
    expect(noAmount.status).toBe(400);
    expect(await noAmount.text()).toMatch(/amount/);
    const badAction = await sys.request('POST', `/v1/operations/${id}/budget`, { action: 'double' });
    expect(badAction.status).toBe(400);
    expect(await badAction.text()).toMatch(/action/);

    const extend = await sys.request('POST', `/v1/operations/${id}/budget`, { action: 'extend', amount: 1 });
    expect(extend.status).toBe(200);
    const done = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    expect(done.error).toBeUndefined();
    expect(done.status).toBe('awaiting_approval');
    expect(done.pullRequest?.number).toBeGreaterThan(0);
    expect(done.usage.modelCalls).toBe(5);
    expect(done.budgetContract).toMatchObject({ extendedUsd: 1, pause: { state: 'extended', amountUsd: 1 } });
    // A second answer to a decided pause is a conflict.
    const again = await sys.request('POST', `/v1/operations/${id}/budget`, { action: 'stop' });
    expect(again.status).toBe(409);
    const events = await sys.runtime.events.list(id);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['budget_estimate', 'budget_pause']));

    // The next operation of the type on the repository is estimated from that history.
    scripts.set(repo, [FIVE_TURNS]);
    const next = await createOperation(repo);
    const second = await waitForStatus(sys, next, ['awaiting_approval', 'failed']);
    expect(second.budgetContract).toMatchObject({ estimateBasis: 'history', estimateSamples: 1 });
    expect(usd(second.budgetContract!.estimateUsd!)).toBe(usd(5 * CALL_USD));
  }, 120_000);

  it('a stop at the threshold ends it as a budget stop, the work so far kept as its diff', async () => {
    const repo = await createRepo('budgets:\n  pause_at_percent: 80\n');
    scripts.set(repo, [FIVE_TURNS]);
    const id = await createOperation(repo, BUDGET_USD);
    await paused(id);
    const stop = await sys.request('POST', `/v1/operations/${id}/budget`, { action: 'stop' });
    expect(stop.status).toBe(200);
    const op = await waitForStatus(sys, id, ['failed', 'awaiting_approval', 'cancelled']);
    expect(op.status).toBe('failed');
    expect(op.outcome).toMatchObject({ code: 'budget', kept: `the operation's ${KEPT_DIFF_ARTIFACT} artifact` });
    expect(op.error).toMatch(/^budget exhausted: stopped at the budget's threshold by /);
    expect(op.usage.modelCalls).toBe(3);
    const diff = await sys.runtime.artifacts.read(id, KEPT_DIFF_ARTIFACT);
    expect(diff?.content).toContain('+export const answer = 42;');
  }, 120_000);

  it('no answer within the policy’s timeout stops it the same way', async () => {
    const repo = await createRepo('budgets:\n  decision_timeout_ms: 300\n');
    scripts.set(repo, [FIVE_TURNS]);
    const id = await createOperation(repo, BUDGET_USD);
    const op = await waitForStatus(sys, id, ['failed', 'awaiting_approval', 'cancelled']);
    expect(op.outcome).toMatchObject({ code: 'budget' });
    expect(op.error).toMatch(/nobody extended the budget within 300 ms of its threshold/);
    expect(op.budgetContract?.pause).toMatchObject({ state: 'stopped', by: 'timeout' });
  }, 120_000);

  it('the daily repository cap counts a red-CI retry and refuses the next operation at the door', async () => {
    // $0.55 a day: the run ($0.50) stays under it, its CI retry ($0.20) crosses it.
    const repo = await createRepo('budgets:\n  repository_daily_usd: 0.55\n');
    scripts.set(repo, [FIVE_TURNS, [EDIT_AGAIN, text('Done.\n{"replies":[]}')]]);
    const id = await createOperation(repo);
    const opened = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    expect(opened.status).toBe('awaiting_approval');
    expect(usd((await sys.runtime.dailySpend.spent(repo)).repositoryUsd)).toBe(usd(5 * CALL_USD));

    // A red-CI retry, as the CI handler starts it: a revision of the same operation.
    const head = opened.pullRequest!.headSha;
    await sys.runtime.actions.reviseForFailedChecks(id, {
      requestId: `ci-${head}`,
      feedback: [{ id: 1, kind: 'check_run', user: 'ci', body: 'test failed: bump the answer once more' }],
    });
    await waitForRevision(id, head);
    const today = await sys.runtime.dailySpend.spent(repo);
    expect(usd(today.repositoryUsd)).toBe(usd(7 * CALL_USD));

    const refused = await createOperation(repo);
    const op = await waitForStatus(sys, refused, ['failed', 'awaiting_approval']);
    const midnight = new Date(today.resetsAt);
    expect(midnight.getTime()).toBe(Math.ceil((Date.now() + 1) / 86_400_000) * 86_400_000);
    expect(op.outcome).toEqual({
      code: 'spend_cap',
      cap: 'repository_daily_usd',
      limitUsd: 0.55,
      spentUsd: today.repositoryUsd,
      resetsAt: today.resetsAt,
    });
    expect(op.error).toContain(`it resets at ${today.resetsAt}`);
    // Refused before any model call.
    expect(op.usage.modelCalls).toBe(0);
  }, 120_000);

  it('a feature analysis is refused at the door by the service policy’s cap, before any model call', async () => {
    const spent = await sys.runtime.dailySpend.spent(spentRepo);
    expect(spent.repositoryUsd).toBeGreaterThanOrEqual(0.9);
    scripts.set(spentRepo, [[text('{"never":"asked"}')]]);
    const res = await sys.request('POST', '/v1/feature-requests', { repo: spentRepo, description: 'Dark mode' });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const request = await waitForFeatureRequest(sys, id, (r) => r.status !== 'new');
    expect(request.status).toBe('analysis_failed');
    expect(request.analysisError).toContain('refused: the daily cap repository_daily_usd ($0.90)');
    expect(request.analysisError).toContain(`it resets at ${spent.resetsAt}`);
    // The model was never asked: its script is still there.
    expect(scripts.get(spentRepo)).toHaveLength(1);
  }, 60_000);
});

const EDIT_AGAIN = tool('edit_file', { path: 'src/app.js', oldText: 'answer = 42', newText: 'answer = 43' });

/** Until the revision pushed a new head and handed the PR back. */
const waitForRevision = (id: string, before: string) =>
  waitForOperation(sys, id, (op) => op.status === 'awaiting_approval' && op.pullRequest?.headSha !== before);
