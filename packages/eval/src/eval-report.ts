import { z } from 'zod';
import { wilsonInterval } from './wilson-interval.ts';

/**
 * Why an attempt is not solved: the model wrote nothing; the repository's visible checks
 * stayed red (or the fixer gave up); its change passed them but not the task's hidden tests;
 * the operation's budget ran out; anything else (an install that failed, a review that
 * rejected the change, a secret in it, a crash), with the operation's own reason as detail.
 */
export const FAILURE_REASONS = ['no_change', 'checks_red', 'hidden_tests_red', 'budget', 'error'] as const;
export const AttemptReason = z.enum(['solved', ...FAILURE_REASONS]);
export type AttemptReason = z.infer<typeof AttemptReason>;

/** One attempt at one task: an ordinary operation, graded. */
export const AttemptResult = z.object({
  attempt: z.number().int().positive(),
  opId: z.string(),
  solved: z.boolean(),
  reason: AttemptReason,
  detail: z.string().optional(),
  costUsd: z.number().nonnegative(),
  tokens: z.number().int().nonnegative(),
  turns: z.number().int().nonnegative(),
  repairs: z.number().int().nonnegative(),
  wallMs: z.number().int().nonnegative(),
});
export type AttemptResult = z.infer<typeof AttemptResult>;

/** A task's result: the attempt chosen by executed checks alone (see `chooseAttempt`), and every attempt. */
const TaskResult = z.object({
  instance: z.string(),
  solved: z.boolean(),
  reason: AttemptReason,
  detail: z.string().optional(),
  chosenAttempt: z.number().int().positive(),
  attempts: z.array(AttemptResult).min(1),
});
type TaskResult = z.infer<typeof TaskResult>;

const Spread = z.object({ total: z.number(), perTask: z.number() });
const SpreadPerSolve = Spread.extend({ perSolve: z.number().nullable() });

/** Which tasks changed between two runs of the same tasks. */
const RunComparison = z.object({
  /** The earlier run's id, and the model it ran. */
  against: z.string(),
  modelBefore: z.string(),
  /** Its solve rate over the tasks both runs have. */
  solveRateBefore: z.number(),
  /** The same tasks' solve rate in this run. */
  solveRateNow: z.number(),
  common: z.number().int().nonnegative(),
  nowSolved: z.array(z.string()),
  nowUnsolved: z.array(z.string()),
});
type RunComparison = z.infer<typeof RunComparison>;

/**
 * An evaluation run's report: what `eval run` prints as JSON, stores for the dashboard and
 * exports in `/metrics`. Money in USD rounded to the micro-dollar, rates to 4 decimals,
 * averages of counts to 1 decimal.
 */
export const EvalReport = z.object({
  run: z.string(),
  /** The tasks file's name: runs of one suite and model form a trend. */
  suite: z.string(),
  model: z.string(),
  startedAt: z.string(),
  finishedAt: z.string(),
  attemptsPerTask: z.number().int().positive(),
  tasks: z.number().int().nonnegative(),
  solved: z.number().int().nonnegative(),
  /** Solved tasks / tasks: pass@k with k = attemptsPerTask, an attempt chosen by executed checks only. */
  solveRate: z.number(),
  /** 95 % Wilson interval of the solve rate. */
  interval: z.object({ low: z.number(), high: z.number() }),
  /** Solved attempts / attempts. */
  passAt1: z.number(),
  costUsd: SpreadPerSolve,
  tokens: SpreadPerSolve,
  /** Operation time (claim to end), summed over attempts. */
  wallMs: Spread,
  /** Model calls. */
  turns: Spread,
  /** Fixer rounds after the first verification. */
  repairs: Spread,
  /** Unsolved tasks by the reason of their chosen attempt. */
  failures: z.record(z.enum(FAILURE_REASONS), z.number().int().nonnegative()),
  results: z.array(TaskResult),
  comparison: RunComparison.optional(),
});
export type EvalReport = z.infer<typeof EvalReport>;

const usd = (n: number) => Math.round(n * 1e6) / 1e6;
const rate = (n: number) => Math.round(n * 1e4) / 1e4;
const avg = (n: number) => Math.round(n * 10) / 10;
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/**
 * Which of a task's attempts counts, by executed checks only — never by the model's own say
 * or a reviewer: the first one the hidden tests graded solved; else the first whose change
 * passed the visible checks (graded, but red on the hidden tests); else the first.
 */
export function chooseAttempt(attempts: readonly AttemptResult[]): AttemptResult {
  return attempts.find((a) => a.solved) ?? attempts.find((a) => a.reason === 'hidden_tests_red') ?? attempts[0]!;
}

export function taskResult(instance: string, attempts: AttemptResult[]): TaskResult {
  const chosen = chooseAttempt(attempts);
  return {
    instance,
    solved: chosen.solved,
    reason: chosen.reason,
    ...(chosen.detail ? { detail: chosen.detail } : {}),
    chosenAttempt: chosen.attempt,
    attempts,
  };
}

/** The figures of a run from its tasks' results; spend counts every attempt, solves count tasks. */
export function buildReport(
  head: Pick<EvalReport, 'run' | 'suite' | 'model' | 'startedAt' | 'finishedAt' | 'attemptsPerTask'>,
  results: TaskResult[],
  earlier?: EvalReport,
): EvalReport {
  const attempts = results.flatMap((r) => r.attempts);
  const tasks = results.length;
  const solved = results.filter((r) => r.solved).length;
  const per = (total: number) => (tasks === 0 ? 0 : total / tasks);
  const perSolve = (total: number) => (solved === 0 ? null : total / solved);
  const cost = sum(attempts.map((a) => a.costUsd));
  const tokens = sum(attempts.map((a) => a.tokens));
  const wall = sum(attempts.map((a) => a.wallMs));
  const turns = sum(attempts.map((a) => a.turns));
  const repairs = sum(attempts.map((a) => a.repairs));
  const interval = wilsonInterval(solved, tasks);
  const failures = Object.fromEntries(FAILURE_REASONS.map((r) => [r, 0])) as EvalReport['failures'];
  for (const r of results) if (r.reason !== 'solved') failures[r.reason]++;
  const report: EvalReport = {
    ...head,
    tasks,
    solved,
    solveRate: rate(per(solved)),
    interval: { low: rate(interval.low), high: rate(interval.high) },
    passAt1: rate(attempts.length === 0 ? 0 : attempts.filter((a) => a.solved).length / attempts.length),
    costUsd: { total: usd(cost), perTask: usd(per(cost)), perSolve: nullable(perSolve(cost), usd) },
    tokens: { total: tokens, perTask: avg(per(tokens)), perSolve: nullable(perSolve(tokens), avg) },
    wallMs: { total: wall, perTask: Math.round(per(wall)) },
    turns: { total: turns, perTask: avg(per(turns)) },
    repairs: { total: repairs, perTask: avg(per(repairs)) },
    failures,
    results,
  };
  const comparison = earlier ? compareRuns(results, earlier) : undefined;
  return comparison ? { ...report, comparison } : report;
}

function nullable(n: number | null, round: (n: number) => number): number | null {
  return n === null ? null : round(n);
}

/** The tasks both runs have, and which of them flipped between solved and unsolved. */
function compareRuns(results: readonly TaskResult[], earlier: EvalReport): RunComparison {
  const before = new Map(earlier.results.map((r) => [r.instance, r.solved]));
  const common = results.filter((r) => before.has(r.instance));
  const solvedShare = (n: number) => rate(common.length === 0 ? 0 : n / common.length);
  return {
    against: earlier.run,
    modelBefore: earlier.model,
    solveRateBefore: solvedShare(common.filter((r) => before.get(r.instance)).length),
    solveRateNow: solvedShare(common.filter((r) => r.solved).length),
    common: common.length,
    nowSolved: common.filter((r) => r.solved && !before.get(r.instance)).map((r) => r.instance),
    nowUnsolved: common.filter((r) => !r.solved && before.get(r.instance)).map((r) => r.instance),
  };
}
