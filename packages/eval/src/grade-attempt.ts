import type { EvalTask } from './eval-task.ts';
import type { TreeTests } from './tree-tests.ts';

interface Grade {
  solved: boolean;
  reason: 'solved' | 'hidden_tests_red' | 'error';
  detail?: string;
}

/** How many test names a detail lists before "and n more". */
const NAMED = 5;

/**
 * An attempt's change, graded: on a fresh checkout of the task's base, the change, then the
 * hidden tests (their files reset to the base first, so the hidden version is what runs), the
 * install and the `test` check, in the sandbox. Solved when every FAIL_TO_PASS and every
 * PASS_TO_PASS test is among the tests the run names as passed.
 */
export async function gradeAttempt(tests: TreeTests, task: EvalTask, change: string): Promise<Grade> {
  const commands = await tests.commandsAt(task.repo, task.base_commit);
  const result = await tests.run(
    task.repo,
    task.base_commit,
    [
      { label: "the attempt's change", diff: change },
      { label: 'the hidden tests', diff: task.test_patch, reset: true },
    ],
    commands,
  );
  if (!result.ok) return { solved: false, reason: 'error', detail: result.problem };
  const passed = new Set(result.passed);
  const red = [...task.FAIL_TO_PASS, ...task.PASS_TO_PASS].filter((t) => !passed.has(t));
  if (red.length === 0) return { solved: true, reason: 'solved' };
  const more = red.length > NAMED ? ` and ${red.length - NAMED} more` : '';
  return { solved: false, reason: 'hidden_tests_red', detail: `not passing: ${red.slice(0, NAMED).join(', ')}${more}` };
}
