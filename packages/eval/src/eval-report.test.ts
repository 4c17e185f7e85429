import { describe, expect, it } from 'vitest';
import { type AttemptResult, buildReport, chooseAttempt, type EvalReport, taskResult } from './eval-report.ts';

const attempt = (n: number, over: Partial<AttemptResult>): AttemptResult => ({
  attempt: n,
  opId: `op${n}`,
  solved: false,
  reason: 'error',
  costUsd: 0.1,
  tokens: 100,
  turns: 2,
  repairs: 0,
  wallMs: 1000,
  ...over,
});
const head = {
  run: 'r2',
  suite: 's',
  model: 'm',
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:01:00.000Z',
  attemptsPerTask: 2,
};

describe('choosing among attempts by executed checks only', () => {
  it('takes the first solved attempt, else the first the hidden tests graded, else the first', () => {
    expect(
      chooseAttempt([attempt(1, { reason: 'no_change' }), attempt(2, { solved: true, reason: 'solved' })]).attempt,
    ).toBe(2);
    expect(chooseAttempt([attempt(1, { reason: 'budget' }), attempt(2, { reason: 'hidden_tests_red' })]).attempt).toBe(
      2,
    );
    expect(chooseAttempt([attempt(1, { reason: 'budget' }), attempt(2, { reason: 'checks_red' })]).attempt).toBe(1);
  });
});

describe('buildReport', () => {
  const results = [
    taskResult('a', [attempt(1, { reason: 'checks_red', repairs: 2 }), attempt(2, { solved: true, reason: 'solved' })]),
    taskResult('b', [attempt(1, { reason: 'no_change' }), attempt(2, { reason: 'budget', costUsd: 0.5 })]),
    taskResult('c', [attempt(1, { reason: 'hidden_tests_red', detail: 'not passing: x' }), attempt(2, {})]),
  ];

  it('pass@k over tasks, pass@1 over attempts; spend over every attempt, per task and per solve', () => {
    const r = buildReport(head, results);
    expect(r).toMatchObject({
      tasks: 3,
      solved: 1,
      solveRate: 0.3333,
      interval: { low: 0.0615, high: 0.7923 },
      passAt1: 0.1667,
      costUsd: { total: 1, perTask: 0.333333, perSolve: 1 },
      tokens: { total: 600, perTask: 200, perSolve: 600 },
      wallMs: { total: 6000, perTask: 2000 },
      turns: { total: 12, perTask: 4 },
      repairs: { total: 2, perTask: 0.7 },
      failures: { no_change: 1, checks_red: 0, hidden_tests_red: 1, budget: 0, error: 0 },
    });
    expect(r.results[2]).toMatchObject({ reason: 'hidden_tests_red', detail: 'not passing: x', chosenAttempt: 1 });
    expect(r.comparison).toBeUndefined();
  });

  it('says which tasks flipped against an earlier run, over the tasks both have', () => {
    const earlier = {
      ...buildReport({ ...head, run: 'r1' }, [
        taskResult('a', [attempt(1, {})]),
        taskResult('b', [attempt(1, { solved: true, reason: 'solved' })]),
        taskResult('z', [attempt(1, { solved: true, reason: 'solved' })]),
      ]),
    } satisfies EvalReport;
    expect(buildReport(head, results, earlier).comparison).toEqual({
      against: 'r1',
      modelBefore: 'm',
      solveRateBefore: 0.5,
      solveRateNow: 0.5,
      common: 2,
      nowSolved: ['a'],
      nowUnsolved: ['b'],
    });
  });

  it('has no cost per solve when nothing was solved', () => {
    const r = buildReport(head, [taskResult('a', [attempt(1, {})])]);
    expect(r.costUsd.perSolve).toBeNull();
    expect(r.tokens.perSolve).toBeNull();
  });
});
