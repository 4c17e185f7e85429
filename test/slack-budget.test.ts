import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  anthropicStream,
  type Responder,
  type ScriptedServer,
  sse,
  startScriptedServer,
} from '@pullwright/agent/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CapturedCall } from './support/fake-slack.ts';
import { REQUESTER, type SlackSystem, startSlackSystem } from './support/fake-slack-system.ts';
import { createSampleRepo } from './support/sample-repo.ts';

// Planted: it must reach the model server as a credential and nothing else.
const ANTHROPIC_KEY = 'sk-ant-api03-BUDGETbudgetBUDGETbudget0123456789abcdef';
const MODEL = 'claude-sonnet-5-5';
// The price table's claude-sonnet-5-5: $2 / $10 / $0.1 per million input / output / cache-read tokens.
const usage = { input_tokens: 1200, output_tokens: 150, cache_read_input_tokens: 800 };
const CALL_COST = (1200 * 2 + 150 * 10 + 800 * 0.1) / 1e6;
const BUDGET = 0.01;
/** The budget is checked before each call: the calls it takes to reach it, the last one crossing it. */
const CALLS_TO_BUDGET = Math.ceil(BUDGET / CALL_COST);

const text = (t: string): Responder =>
  sse(anthropicStream({ content: [{ type: 'text', text: t }], stop_reason: 'end_turn', usage, model: MODEL }));
/** Distinct inputs: the stuck detector must not end the loop before the budget does. */
const readFile = (i: number): Responder =>
  sse(
    anthropicStream({
      content: [
        {
          type: 'tool_use',
          id: `toolu_${i}`,
          name: 'read_file',
          input: { path: 'src/slugify.js', startLine: 1, endLine: i + 1 },
        },
      ],
      stop_reason: 'tool_use',
      usage,
      model: MODEL,
    }),
  );
const plan = {
  summary: 'slugify replaces only the first space.',
  steps: [{ title: 'Fix slugify', files: ['src/slugify.js'], acceptance: 'npm test passes' }],
  risks: [],
};

describe('Slack --budget is the operation’s own cost cap', () => {
  let s: SlackSystem | undefined;
  let server: ScriptedServer | undefined;
  let scratch: string;
  /** A service policy that never pauses (`pause_at_percent: 100`): the operation stops at its budget. */
  let noPause: string;
  beforeAll(() => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'pw-slack-budget-'));
    noPause = path.join(scratch, 'service-policy.yml');
    writeFileSync(noPause, 'budgets: { pause_at_percent: 100 }\n');
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  afterEach(async () => {
    await s?.stop();
    await server?.close();
  });

  /** More turns than the budget allows (a run that ignored it would go on reading), through Slack. */
  async function startBudgeted(env: Record<string, string> = {}): Promise<SlackSystem> {
    server = await startScriptedServer([
      text(JSON.stringify(plan)),
      ...Array.from({ length: CALLS_TO_BUDGET + 2 }, (_, i) => readFile(i)),
    ]);
    return startSlackSystem({
      env: {
        LLM_PROVIDER: 'anthropic',
        ANTHROPIC_API_KEY: ANTHROPIC_KEY,
        ANTHROPIC_BASE_URL: server.url,
        LLM_MODEL: MODEL,
        ...env,
      },
    });
  }

  it('with IDENTITIES set, stops the operation at its cost (no cancel by a made-up user)', async () => {
    s = await startBudgeted({
      IDENTITIES: JSON.stringify([{ id: 'dev', role: 'committer', slack: [REQUESTER] }]),
      POLICY_FILE: noPause,
    });
    const repo = await createSampleRepo(s.sys.runtime.localForge!);
    const answer = await s.command({ command: '/debug', text: `${repo} slugify keeps spaces --budget ${BUDGET}` });
    expect(answer.status).toBe(200);
    const [queued] = await s.sys.runtime.store.list();
    expect(queued?.budget).toEqual({ costUsd: BUDGET });

    const op = await s.waitForStatus(queued!.id, ['failed', 'awaiting_approval', 'cancelled'], 60_000);
    expect(op.status).toBe('failed');
    expect(op.error).toMatch(/^budget exhausted: cost budget used \(\$0\.\d{4} of \$0\.01\)/);
    expect(server!.requests).toHaveLength(CALLS_TO_BUDGET);
    // Stopped by the budget, never by a cancel request someone had to be allowed to make.
    expect(op.cancelRequested).toBeFalsy();
    expect(op.usage.costUsd).toBeGreaterThanOrEqual(BUDGET);
    expect(op.usage.costUsd).toBeLessThan(BUDGET + CALL_COST);
  });

  it('pauses at 80 % with Extend / Stop in the thread; the requester extends once, then stops it as a budget stop', async () => {
    s = await startBudgeted();
    const repo = await createSampleRepo(s.sys.runtime.localForge!);
    await s.command({ command: '/debug', text: `${repo} slugify keeps spaces --budget ${BUDGET}` });
    const [queued] = await s.sys.runtime.store.list();
    const id = queued!.id;
    await s.waitForEvent(id, (e) => e.type === 'budget_pause' && e.data.state === 'pending');
    const rootTs = await s.threadOf(id);
    const blocksOf = (c: CapturedCall) => JSON.stringify(c.args.blocks ?? []);
    await s.fake.waitFor(
      (calls) => calls.some((c) => c.args.thread_ts === rootTs && blocksOf(c).includes('pw_budget_extend')),
      10_000,
      'budget pause message',
    );
    // The pause came before the budget ran out: the calls that reach 80 % of it, not all of them.
    const paused = await s.sys.runtime.store.get(id);
    expect(paused.usage.costUsd).toBeGreaterThanOrEqual(0.8 * BUDGET);
    expect(paused.usage.costUsd).toBeLessThan(0.8 * BUDGET + CALL_COST);

    // Extend needs an amount in the box; with one, the operation goes on and asks again at 80 % of the new budget.
    const extend = (amount: string) =>
      s!.click({
        user: REQUESTER,
        actionId: 'pw_budget_extend',
        value: id,
        hook: `budget-extend-${amount || 'empty'}`,
        inputs: { pw_budget_amount: { pw_budget_amount_input: amount } },
      });
    expect(await extend('')).toBe(200);
    expect((await s.sys.runtime.store.get(id)).budgetContract?.pause?.state).toBe('pending');
    expect(await extend('0.01')).toBe(200);
    await s.waitForEvent(
      id,
      (e) => e.type === 'budget_pause' && e.data.state === 'pending' && e.data.limitUsd === 0.02,
    );
    expect((await s.sys.runtime.store.get(id)).budgetContract).toMatchObject({ extendedUsd: 0.01 });

    expect(await s.click({ user: REQUESTER, actionId: 'pw_budget_stop', value: id, hook: 'budget-stop' })).toBe(200);
    const op = await s.waitForStatus(id, ['failed', 'awaiting_approval', 'cancelled'], 60_000);
    expect(op.status).toBe('failed');
    expect(op.error).toMatch(new RegExp(`^budget exhausted: stopped at the budget's threshold by ${REQUESTER}`));
    expect(op.budgetContract?.pause).toMatchObject({ state: 'stopped', by: REQUESTER });
    expect(op.cancelRequested).toBeFalsy();
  });
});
