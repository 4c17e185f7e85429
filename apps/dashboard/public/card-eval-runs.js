// One evaluation suite (a tasks file and a model) on the Evaluations page: the solve rate's
// trend over its runs with each run's 95 % interval, the figures of every run, and the newest
// run's tasks with the reason each unsolved one gives.
import { cost, duration, h, tokens } from './dom.js';

/** @import { EvalReport } from '@pullwright/eval/report' */

const REASONS = {
  no_change: 'no change',
  checks_red: 'checks red',
  hidden_tests_red: 'hidden tests red',
  budget: 'budget',
  error: 'error',
};

const pct = (n) => `${(n * 100).toFixed(1)} %`;
const money = (n) => (n === null ? '—' : cost(n));

/** @param {EvalReport} r */
function interval(r) {
  return `${pct(r.interval.low)}–${pct(r.interval.high)}`;
}

/**
 * The trend: one bar per run, oldest on the left; its height is the solve rate, the shaded band
 * behind it the interval.
 * @param {EvalReport[]} oldestFirst
 */
function trend(oldestFirst) {
  return h(
    'ol',
    { class: 'eval-trend', 'aria-label': 'Solve rate by run, oldest first' },
    oldestFirst.map((r) =>
      h(
        'li',
        {
          class: 'eval-bar',
          dataset: { run: r.run },
          title: `${new Date(r.finishedAt).toLocaleString()}: ${r.solved} of ${r.tasks} (${pct(r.solveRate)}; 95 % CI ${interval(r)})`,
        },
        h('span', {
          class: 'eval-band',
          style: `bottom: ${r.interval.low * 100}%; height: ${(r.interval.high - r.interval.low) * 100}%`,
        }),
        h('span', { class: 'eval-rate', style: `height: ${r.solveRate * 100}%` }),
        h('span', { class: 'eval-bar-label' }, pct(r.solveRate)),
      ),
    ),
  );
}

/** @param {EvalReport} r */
function unsolved(r) {
  const parts = Object.entries(r.failures)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${REASONS[reason] ?? reason} ${n}`);
  return parts.length ? parts.join(', ') : 'none';
}

/** @param {EvalReport[]} newestFirst */
function runsTable(newestFirst) {
  return h(
    'table',
    { class: 'eval-runs' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        [
          'Finished',
          'Solved',
          'Rate (95 % CI)',
          'Cost / task',
          'Cost / solve',
          'Tokens / task',
          'Time / task',
          'Turns',
          'Repairs',
          'Unsolved',
        ].map((t) => h('th', {}, t)),
      ),
    ),
    h(
      'tbody',
      {},
      newestFirst.map((r) =>
        h(
          'tr',
          { dataset: { run: r.run } },
          h('td', {}, new Date(r.finishedAt).toLocaleString()),
          h('td', { class: 'num' }, `${r.solved} / ${r.tasks}`),
          h('td', { class: 'num' }, `${pct(r.solveRate)} (${interval(r)})`),
          h('td', { class: 'num' }, money(r.costUsd.perTask)),
          h('td', { class: 'num' }, money(r.costUsd.perSolve)),
          h('td', { class: 'num' }, tokens(r.tokens.perTask)),
          h('td', { class: 'num' }, duration(r.wallMs.perTask)),
          h('td', { class: 'num' }, String(r.turns.perTask)),
          h('td', { class: 'num' }, String(r.repairs.perTask)),
          h('td', {}, unsolved(r)),
        ),
      ),
    ),
  );
}

/** @param {EvalReport} r  The newest run. */
function tasks(r) {
  const c = r.comparison;
  return [
    h('h3', {}, `Tasks of the newest run (${r.attemptsPerTask} attempt${r.attemptsPerTask === 1 ? '' : 's'} each)`),
    h(
      'ul',
      { class: 'eval-tasks' },
      r.results.map((t) =>
        h(
          'li',
          { class: `eval-task ${t.solved ? 'eval-solved' : 'eval-unsolved'}`, dataset: { instance: t.instance } },
          h('span', { class: 'eval-mark', 'aria-hidden': 'true' }, t.solved ? '✓' : '✗'),
          h('code', {}, t.instance),
          t.solved
            ? null
            : h('span', { class: 'eval-reason' }, `${REASONS[t.reason]}${t.detail ? `: ${t.detail}` : ''}`),
        ),
      ),
    ),
    c
      ? h(
          'p',
          { class: 'eval-flips muted small' },
          `Since run ${c.against} (${c.modelBefore}): ${pct(c.solveRateBefore)} → ${pct(c.solveRateNow)} on ${c.common} common tasks; ` +
            `now solved: ${c.nowSolved.join(', ') || 'none'}; no longer solved: ${c.nowUnsolved.join(', ') || 'none'}.`,
        )
      : null,
  ];
}

/**
 * Runs grouped by suite and model, each group newest first, groups by their newest run.
 * @param {EvalReport[]} runs  Newest first.
 */
export function suitesOf(runs) {
  /** @type {Map<string, EvalReport[]>} */
  const groups = new Map();
  for (const r of runs) {
    const key = JSON.stringify([r.suite, r.model]);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()];
}

/**
 * @param {EvalReport[]} runs  The runs of one suite and model, newest first.
 */
export function renderEvalSuite(runs) {
  const newest = runs[0];
  return h(
    'section',
    { class: 'card eval-suite', dataset: { suite: newest.suite, model: newest.model } },
    h('h2', { class: 'card-title' }, `${newest.suite} · ${newest.model}`),
    trend([...runs].reverse()),
    runsTable(runs),
    tasks(newest),
  );
}
