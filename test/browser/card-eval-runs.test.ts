// @vitest-environment happy-dom
import { type AttemptResult, buildReport, type EvalReport, taskResult } from '@pullwright/eval/report';
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

const { renderEvalSuite, suitesOf } = await loadCard<{
  renderEvalSuite: (runs: EvalReport[]) => CardElement;
  suitesOf: (runs: EvalReport[]) => EvalReport[][];
}>('card-eval-runs.js');

const attempt = (over: Partial<AttemptResult>): AttemptResult => ({
  attempt: 1,
  opId: 'op',
  solved: false,
  reason: 'no_change',
  costUsd: 0.02,
  tokens: 2400,
  turns: 4,
  repairs: 0,
  wallMs: 3000,
  ...over,
});
const head = (run: string, day: number, model = 'replay:kit') => ({
  run,
  suite: 'kit',
  model,
  startedAt: `2026-01-0${day}T00:00:00.000Z`,
  finishedAt: `2026-01-0${day}T00:00:00.000Z`,
  attemptsPerTask: 1,
});
const first = buildReport(head('r1', 1), [
  taskResult('acme__kit-1', [attempt({ solved: true, reason: 'solved' })]),
  taskResult('acme__kit-3', [attempt({ reason: 'hidden_tests_red', detail: 'not passing: slug joins every word' })]),
]);
const second = buildReport(
  head('r2', 2),
  [
    taskResult('acme__kit-1', [attempt({ solved: true, reason: 'solved' })]),
    taskResult('acme__kit-3', [attempt({ solved: true, reason: 'solved' })]),
  ],
  first,
);

describe('the evaluations page', () => {
  it('groups runs by tasks file and model, newest group first', () => {
    const other = buildReport(head('r3', 3, 'claude-sonnet-5'), [taskResult('acme__kit-1', [attempt({})])]);
    expect(suitesOf([other, second, first]).map((g) => g.map((r) => r.run))).toEqual([['r3'], ['r2', 'r1']]);
  });

  it('draws the trend oldest first with each run’s interval, the runs’ figures and the newest run’s tasks', () => {
    const el = renderEvalSuite([second, first]);
    expect(el.querySelector('.card-title')!.textContent).toBe('kit · replay:kit');
    const bars = [...el.querySelectorAll('.eval-bar')];
    expect(bars.map((b) => b.dataset.run)).toEqual(['r1', 'r2']);
    expect(bars.map((b) => b.querySelector('.eval-bar-label')!.textContent)).toEqual(['50.0 %', '100.0 %']);
    expect(bars[0]!.getAttribute('title')).toContain('1 of 2 (50.0 %; 95 % CI 9.4 %–90.5 %)');
    const rows = [...el.querySelectorAll('.eval-runs tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent),
    );
    expect(rows).toEqual([
      ['2 / 2', '100.0 % (34.2 %–100.0 %)', '$0.02', '$0.02', '2.4k', '3.0 s', '4', '0', 'none'],
      ['1 / 2', '50.0 % (9.4 %–90.5 %)', '$0.02', '$0.04', '2.4k', '3.0 s', '4', '0', 'hidden tests red 1'],
    ]);
    expect([...el.querySelectorAll('.eval-tasks li')].map((li) => li.textContent)).toEqual([
      '✓acme__kit-1',
      '✓acme__kit-3',
    ]);
    expect(el.querySelector('.eval-flips')!.textContent).toBe(
      'Since run r1 (replay:kit): 50.0 % → 100.0 % on 2 common tasks; now solved: acme__kit-3; no longer solved: none.',
    );
  });

  it('says why an unsolved task of the newest run is unsolved', () => {
    const el = renderEvalSuite([first]);
    expect(el.querySelector('[data-instance="acme__kit-3"] .eval-reason')!.textContent).toBe(
      'hidden tests red: not passing: slug joins every word',
    );
    expect(el.querySelector('.eval-flips')).toBeNull();
  });
});
