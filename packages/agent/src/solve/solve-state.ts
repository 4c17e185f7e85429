import type { Plan, Review } from '@pullwright/core';
import type { AgentLoopResult } from '../agent-loop.ts';
import { trimFailure } from '../check-failures.ts';
import { SolveJournal } from '../solve-journal.ts';
import type { CheckRun } from '../tools/define-tool.ts';
import { blockingFailures } from './blocking-failures.ts';
import { type Converse, converseFor } from './converse.ts';
import type { EditMode } from './edit-mode.ts';
import type { BaselineCheck, FixReportEntry, SolveInput, SolvePhase } from './solve-input.ts';
import { textEditMode } from './text-edit-mode.ts';
import { toolEditMode } from './tool-edit-mode.ts';

export type SolveOutcome =
  | 'ready'
  | 'checks_failed'
  | 'review_rejected'
  | 'no_changes'
  | 'stopped'
  | 'budget'
  | 'stuck'
  | 'invalid_plan'
  | 'invalid_review';

export interface SolveResult {
  outcome: SolveOutcome;
  reason?: string;
  plan?: Plan;
  summary: string;
  review?: Review;
  checks: CheckRun[];
  /** Checks failing with failures the base did not have (what blocks the change). */
  newFailures: CheckRun[];
  /** Failures already on the base commit: reported, not blocking. */
  preExisting: { name: string; failingTests: string[] }[];
  repairs: number;
  /** Every repair round's fixer report, in order. */
  fixReports: FixReportEntry[];
}

/** What a solve has found out so far: each phase reads it and adds to it, the result is read off it. */
export interface SolveState {
  plan?: Plan;
  summary: string;
  /** Repair rounds so far, per-step ones included. */
  repairs: number;
  /** The last failure sent to the fixer: the same one after two repairs means stuck. */
  lastFingerprint?: string;
  /** The latest check runs, and those of them that block. */
  checks: CheckRun[];
  newFailures: CheckRun[];
  /** The baseline once a verification has awaited it (nothing is pre-existing before any check ran). */
  baseline: Record<string, BaselineCheck>;
  fixReports: FixReportEntry[];
  /** Why the last edit answer was not applied (text mode; nothing was written). */
  applyProblem: string | undefined;
}

/** One solve under way: what every phase is given. */
export interface Solve {
  readonly input: SolveInput;
  readonly journal: SolveJournal;
  readonly converse: Converse;
  readonly edits: EditMode;
  readonly checkNames: string[];
  readonly maxRepairs: number;
  readonly state: SolveState;
}

/** Opens the journal (a resumed solve's provider skips the calls it recorded) and picks the edit mode. */
export async function openSolve(input: SolveInput): Promise<Solve> {
  const journal = await SolveJournal.open(input.checkpoint);
  if (journal.recordedModelCalls > 0) input.provider.resumeAfter?.(journal.recordedModelCalls);
  const converse = converseFor(input, journal);
  const checkNames = input.context.checks.names();
  const edits = (input.editMode === 'text' ? textEditMode : toolEditMode)(input, checkNames, converse);
  const state: SolveState = {
    summary: '',
    repairs: 0,
    checks: [],
    newFailures: [],
    baseline: {},
    fixReports: [],
    applyProblem: undefined,
  };
  return { input, journal, converse, edits, checkNames, maxRepairs: input.maxRepairs ?? 3, state };
}

/** Reports entering a phase; phases an earlier attempt reached were reported then, so a resumed solve reports only new ones. */
export async function enterPhase(solve: Solve, phase: SolvePhase, data: Record<string, unknown> = {}): Promise<void> {
  if (!solve.journal.replaying) await solve.input.onPhase?.(phase, data);
}

/** The result as the state has it now. */
export function resultOf(solve: Solve, outcome: SolveOutcome, reason?: string): SolveResult {
  const { plan, summary, checks, newFailures, baseline, repairs, fixReports } = solve.state;
  return {
    outcome,
    ...(reason ? { reason } : {}),
    ...(plan ? { plan } : {}),
    summary,
    checks,
    newFailures,
    preExisting: checks
      .filter((c) => !c.passed && baseline[c.name] && !baseline[c.name]!.passed && !newFailures.includes(c))
      .map((c) => ({ name: c.name, failingTests: c.failingTests })),
    repairs,
    fixReports,
  };
}

/** The result of a conversation that did not complete (cancelled, out of budget, going in circles). */
export function interrupted(solve: Solve, loop: AgentLoopResult): SolveResult | undefined {
  return loop.stop === 'completed' ? undefined : resultOf(solve, loop.stop, loop.reason);
}

/** Runs the named checks (or replays their recorded results) and judges them against the baseline. */
export async function runChecks(solve: Solve, names: readonly string[]): Promise<void> {
  const { input, state } = solve;
  state.checks = await solve.journal.checks(async () => {
    const runs: CheckRun[] = [];
    for (const name of names) runs.push(await input.context.checks.run(name, input.context.signal));
    return runs;
  });
  state.baseline = await input.baseline;
  state.newFailures = blockingFailures(input.type, state.checks, state.baseline, input.mustStayGreen);
}

/** Repair rounds of the final loop: it has its own `maxRepairs`, per-step rounds were spent on their steps. */
export function finalRounds(state: SolveState): number {
  return state.repairs - state.fixReports.filter((f) => f.taskId !== undefined).length;
}

/** The plan as the coder, fixer and reviewer are given it. */
export function planText(state: SolveState): string {
  return state.plan ? `\n\nPlan:\n${JSON.stringify(state.plan, null, 2)}` : '';
}

/** issue 31: the files the request and the plan name, which the coder's and fixer's instructions are chosen for. */
export function planFiles(solve: Solve): string[] {
  return [
    ...new Set([...(solve.input.targetFiles ?? []), ...(solve.state.plan?.steps.flatMap((st) => st.files) ?? [])]),
  ];
}

/** The repair task for a text-mode answer whose file blocks were refused. */
export function notApplied(problem: string): string {
  return `Your file blocks were not applied; nothing was written:\n${problem}`;
}

/** The repair task for the blocking failures: each with its command and the seed 002 head-and-tail of its output. */
export function failureText(state: SolveState): string {
  return state.newFailures
    .map((c) => `Check "${c.name}" failed (exit ${c.exitCode ?? 'none'}):\n$ ${c.command}\n${trimFailure(c.output)}`)
    .join('\n\n');
}
