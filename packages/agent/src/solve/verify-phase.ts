import { failureFingerprint } from '../check-failures.ts';
import {
  enterPhase,
  failureText,
  finalRounds,
  notApplied,
  resultOf,
  runChecks,
  type Solve,
  type SolveResult,
} from './solve-state.ts';

/** Where the solve goes after a phase that judged the change: it ends, or the fixer gets a task. */
export type Verdict = { done: SolveResult } | { repair: string };

/**
 * verify: the change applied, changed something, and passes every check the base passed.
 * Red goes back to the fixer until `maxRepairs` rounds are spent or the same failure returns
 * after two repairs (stuck). Green: the changed files, for the review.
 */
export async function verifyPhase(solve: Solve): Promise<Verdict | { green: string[] }> {
  const { input, state, maxRepairs } = solve;
  const rounds = finalRounds(state);
  if (state.applyProblem) {
    if (rounds >= maxRepairs)
      return {
        done: resultOf(
          solve,
          'checks_failed',
          `file blocks still not applicable after ${state.repairs} repair rounds: ${state.applyProblem}`,
        ),
      };
    return { repair: notApplied(state.applyProblem) };
  }
  const changed = await input.changedFiles();
  if (changed.length === 0) return { done: resultOf(solve, 'no_changes', 'the model made no changes') };

  await enterPhase(solve, 'verify', { files: changed });
  await runChecks(solve, solve.checkNames);
  if (state.newFailures.length === 0) return { green: changed };
  const failing = state.newFailures;
  if (rounds >= maxRepairs)
    return {
      done: resultOf(
        solve,
        'checks_failed',
        `checks still failing after ${state.repairs} repair rounds: ${failing.map((c) => c.name).join(', ')}`,
      ),
    };
  const fingerprint = failing.map((c) => failureFingerprint(c.name, c.output)).join(',');
  if (rounds >= 2 && fingerprint === state.lastFingerprint)
    return {
      done: resultOf(
        solve,
        'stuck',
        `the same failure (${failing.map((c) => c.failingTests.join(', ') || c.name).join('; ')}) came back after two repairs`,
      ),
    };
  state.lastFingerprint = fingerprint;
  return { repair: failureText(state) };
}
