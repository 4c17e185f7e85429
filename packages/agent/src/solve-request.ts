import { codePhase } from './solve/code-phase.ts';
import { fixPhase } from './solve/fix-phase.ts';
import { planPhase } from './solve/plan-phase.ts';
import { reviewPhase } from './solve/review-phase.ts';
import type { SolveInput } from './solve/solve-input.ts';
import { openSolve, resultOf, type SolveResult } from './solve/solve-state.ts';
import { verifyPhase } from './solve/verify-phase.ts';

export { blockingFailures } from './solve/blocking-failures.ts';
export type { BaselineCheck, FixReportEntry, PlanStepEvent, SolveInput } from './solve/solve-input.ts';
export type { SolveOutcome, SolveResult } from './solve/solve-state.ts';

/**
 * The one solve path of a run and of every revision: phases over one state (`Solve`),
 * plan → code → (verify → review?)… with fix rounds between, the same for tool-calling and
 * text-edit models (`EditMode`), journaled turn by turn so a retried job continues where it
 * stopped. The roles follow the seeds: the planner and reviewer only look; the coder and
 * fixer edit; at most `maxRepairs` repair rounds; the reviewer cannot accept a change whose
 * checks fail. A revision skips the planner (its comments are the task list) and the model
 * reviewer (the people who asked review it on the PR).
 */
export async function solveRequest(input: SolveInput): Promise<SolveResult> {
  const solve = await openSolve(input);
  const stop = (input.skipPlan ? undefined : await planPhase(solve)) ?? (await codePhase(solve));
  if (stop) return stop;
  for (;;) {
    const verified = await verifyPhase(solve);
    const verdict =
      'green' in verified
        ? input.skipReview
          ? { done: resultOf(solve, 'ready') }
          : await reviewPhase(solve, verified.green)
        : verified;
    if ('done' in verdict) return verdict.done;
    const fixStop = await fixPhase(solve, verdict.repair);
    if (fixStop) return fixStop;
  }
}
