import { instructionsSection } from '../instructions/repository-instructions.ts';
import { repairFiles } from '../prompt-files.ts';
import type { FixReportEntry } from './solve-input.ts';
import { enterPhase, interrupted, planFiles, planText, type Solve, type SolveResult } from './solve-state.ts';

/**
 * fix: one repair round. The fixer gets what failed (`repairTask`, with `scope` under
 * per-step verification), the request, and the latest version of each changed file; its
 * strict JSON report is recorded. Returns a result only when the solve ends here.
 */
export async function fixPhase(
  solve: Solve,
  repairTask: string,
  scope = '',
  taskId?: string,
): Promise<SolveResult | undefined> {
  const { input, state, edits, journal } = solve;
  state.repairs++;
  const round = state.repairs;
  await enterPhase(solve, 'repair', {
    round,
    failing: state.newFailures.map((c) => c.name),
    ...(taskId ? { taskId } : {}),
  });
  const changed = await input.changedFiles();
  const files = await repairFiles(changed, input.readFile, edits.howToSeeOmitted);
  const fixTask = `${repairTask}${scope}\n\nThe request:\n${input.task}${planText(state)}${instructionsSection(input.instructions, [...changed, ...planFiles(solve)])}\n\nThe latest version of each changed file:\n${files.text || '(no file changed yet)'}`;
  const answer = await edits.fix(fixTask, round, files.partial);
  state.applyProblem = answer.problem;
  const stop = interrupted(solve, answer.loop);
  if (stop || !answer.report) return stop;
  const parsed = answer.report;
  const entry: FixReportEntry = {
    round,
    ...(taskId ? { taskId } : {}),
    valid: parsed.ok,
    ...(parsed.ok ? { report: parsed.value } : { problem: parsed.problem }),
  };
  state.fixReports.push(entry);
  if (!journal.replaying) await input.onFixReport?.(entry);
  if (parsed.ok) {
    const fixes = parsed.value.fixes_applied.map((f) => `${f.file}: ${f.description}`).join('; ');
    state.summary = `${state.summary}\n\nRepair round ${round}: ${fixes || parsed.value.status}`.trim();
  }
  return undefined;
}
