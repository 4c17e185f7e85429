import { failureFingerprint } from '../check-failures.ts';
import type { AgentTaskType } from '../role-prompts.ts';
import type { CheckRun } from '../tools/define-tool.ts';
import type { BaselineCheck } from './solve-input.ts';

/**
 * Whether a check fails in a way the base commit did not: new failing tests, a check that
 * passed there, or (when no test names are known) an output whose fingerprint differs.
 */
function newFailuresOf(run: CheckRun, base: BaselineCheck | undefined): boolean {
  if (run.passed) return false;
  if (!base || base.passed) return true;
  if (run.failingTests.length > 0 && base.failingTests.length > 0)
    return run.failingTests.some((t) => !base.failingTests.includes(t));
  if (base.fingerprint) return failureFingerprint(run.name, run.output) !== base.fingerprint;
  // A baseline without a fingerprint (older cache) and output we cannot read per test: pre-existing.
  return false;
}

/**
 * The failures that block a change. Every request: failures the base did not have (a check
 * red on the base with the same failing tests or output — a lint error, a broken build
 * script — is reported as pre-existing, never a reason to stop). A fix or a debug must also
 * turn a red `test` check green: that red is the bug it was asked to fix. A check named in
 * `mustStayGreen` (green where the change started: a revision's head) blocks whenever red.
 */
export function blockingFailures(
  type: AgentTaskType,
  runs: readonly CheckRun[],
  baseline: Record<string, BaselineCheck>,
  mustStayGreen: readonly string[] = [],
): CheckRun[] {
  const mustTurnGreen = type === 'fix' || type === 'debug';
  return runs.filter(
    (run) =>
      newFailuresOf(run, baseline[run.name]) ||
      (!run.passed && ((mustTurnGreen && run.name === 'test') || mustStayGreen.includes(run.name))),
  );
}
