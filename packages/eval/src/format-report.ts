import type { EvalReport } from './eval-report.ts';

const pct = (n: number) => `${(n * 100).toFixed(1)} %`;
const money = (n: number | null) => (n === null ? '—' : `$${n.toFixed(4)}`);
const count = (n: number | null) => (n === null ? '—' : n.toLocaleString('en-US'));

/** The report as people read it on a terminal (the JSON is the machine's). */
export function formatReport(r: EvalReport): string {
  const unsolved = Object.entries(r.failures)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  const lines = [
    `eval ${r.run}: ${r.suite}, ${r.model}, ${r.attemptsPerTask} attempt${r.attemptsPerTask === 1 ? '' : 's'} per task`,
    `  solved      ${r.solved} of ${r.tasks} (${pct(r.solveRate)}; 95 % CI ${pct(r.interval.low)}–${pct(r.interval.high)})${r.attemptsPerTask > 1 ? `, pass@1 ${pct(r.passAt1)}` : ''}`,
    `  cost        ${money(r.costUsd.perTask)} per task, ${money(r.costUsd.perSolve)} per solve (${money(r.costUsd.total)} in all)`,
    `  tokens      ${count(r.tokens.perTask)} per task, ${count(r.tokens.perSolve)} per solve`,
    `  per task    ${(r.wallMs.perTask / 1000).toFixed(1)} s, ${r.turns.perTask} turns, ${r.repairs.perTask} repairs`,
    `  unsolved    ${unsolved || 'none'}`,
  ];
  for (const t of r.results)
    lines.push(
      `  ${t.solved ? '✓' : '✗'} ${t.instance}${t.solved ? '' : `  ${t.reason}${t.detail ? `: ${t.detail}` : ''}`}`,
    );
  const c = r.comparison;
  if (c) {
    const flips = [...c.nowSolved.map((i) => `+${i}`), ...c.nowUnsolved.map((i) => `-${i}`)].join(' ');
    lines.push(
      `  against ${c.against} (${c.modelBefore}): ${pct(c.solveRateBefore)} → ${pct(c.solveRateNow)} on ${c.common} common tasks; flipped: ${flips || 'none'}`,
    );
  }
  return lines.join('\n');
}
