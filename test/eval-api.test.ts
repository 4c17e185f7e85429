import { type AttemptResult, buildReport, EvalRunStore, taskResult } from '@pullwright/eval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';

const attempt = (over: Partial<AttemptResult>): AttemptResult => ({
  attempt: 1,
  opId: 'op1',
  solved: false,
  reason: 'no_change',
  costUsd: 0.25,
  tokens: 1000,
  turns: 3,
  repairs: 1,
  wallMs: 4000,
  ...over,
});
const run = (id: string, finishedAt: string, model: string, solvedA: boolean) =>
  buildReport({ run: id, suite: 'kit', model, startedAt: finishedAt, finishedAt, attemptsPerTask: 1 }, [
    taskResult('acme__kit-1', [attempt(solvedA ? { solved: true, reason: 'solved' } : { reason: 'checks_red' })]),
    taskResult('acme__kit-3', [attempt({ reason: 'hidden_tests_red' })]),
  ]);

/** The same figures the CLI prints, served to the dashboard and exported in /metrics. */
describe('evaluation runs over REST and in /metrics', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ worker: false });
    const store = new EvalRunStore(sys.runtime.redis, sys.runtime.keys);
    await store.put(run('r1', '2026-01-01T00:00:00.000Z', 'claude-sonnet-5', false));
    await store.put(run('r2', '2026-01-02T00:00:00.000Z', 'claude-sonnet-5', true));
    await store.put(run('r3', '2026-01-03T00:00:00.000Z', 'gpt-6.1-sol', false));
  });
  afterAll(async () => sys?.stop());

  it('lists the runs newest first, and serves one by id; an unknown id is a 404 naming it', async () => {
    const res = await sys.request('GET', '/v1/eval/runs');
    expect(res.status).toBe(200);
    const { runs } = (await res.json()) as { runs: { run: string; solveRate: number }[] };
    expect(runs.map((r) => [r.run, r.solveRate])).toEqual([
      ['r3', 0],
      ['r2', 0.5],
      ['r1', 0],
    ]);
    expect(((await (await sys.request('GET', '/v1/eval/runs/r2')).json()) as { solved: number }).solved).toBe(1);
    const missing = await sys.request('GET', '/v1/eval/runs/nope');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe(
      'evaluation run nope not found',
    );
    expect((await sys.request('GET', '/v1/eval/runs?limit=0')).status).toBe(400);
    expect((await fetch(`${sys.api.url}/v1/eval/runs`)).status).toBe(401);
  });

  it('exports the newest run of each suite and model in /metrics', async () => {
    const text = await (await fetch(`${sys.api.url}/metrics`)).text();
    const sonnet = 'suite="kit",model="claude-sonnet-5"';
    const gpt = 'suite="kit",model="gpt-6.1-sol"';
    for (const line of [
      `pullwright_eval_tasks{${sonnet}} 2`,
      `pullwright_eval_solved{${sonnet}} 1`,
      `pullwright_eval_solve_rate{${sonnet}} 0.5`,
      `pullwright_eval_solve_rate_low{${sonnet}} 0.0945`,
      `pullwright_eval_solve_rate_high{${sonnet}} 0.9055`,
      `pullwright_eval_cost_per_task_usd{${sonnet}} 0.25`,
      `pullwright_eval_cost_per_solve_usd{${sonnet}} 0.5`,
      `pullwright_eval_tokens_per_task{${sonnet}} 1000`,
      `pullwright_eval_wall_seconds_per_task{${sonnet}} 4`,
      `pullwright_eval_turns_per_task{${sonnet}} 3`,
      `pullwright_eval_repairs_per_task{${sonnet}} 1`,
      `pullwright_eval_unsolved{${sonnet},reason="hidden_tests_red"} 1`,
      `pullwright_eval_unsolved{${sonnet},reason="checks_red"} 0`,
      `pullwright_eval_solve_rate{${gpt}} 0`,
      `pullwright_eval_unsolved{${gpt},reason="checks_red"} 1`,
    ])
      expect(text).toContain(`${line}\n`);
    // No solve, no cost per solve: the series is absent, not zero.
    expect(text).not.toContain(`pullwright_eval_cost_per_solve_usd{${gpt}}`);
  });
});
