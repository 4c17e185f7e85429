import { RepoSlug, ValidationError } from '@pullwright/core';
import { z } from 'zod';

/**
 * A list of test names as SWE-bench files carry it: a JSON-encoded string in the published
 * dataset (princeton-nlp/SWE-bench, SWE-bench Pro), a plain array in others (SWE-bench-extra).
 */
const TestList = z.preprocess(
  (value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  },
  z.array(z.string().min(1), { error: 'must be a list of test names (a JSON array, or its JSON text)' }),
);

/**
 * One evaluation task in the SWE-bench instance format: the commit to start from, the problem
 * as people stated it, the change that was merged (`patch`: code; `test_patch`: tests, hidden
 * from the attempt), the tests that must go from red to green and those that must stay green.
 * Other SWE-bench fields (`version`, `environment_setup_commit`…) are accepted and ignored.
 */
export const EvalTask = z.object({
  instance_id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/, 'letters, digits, ., _ and - only (it names files and series)'),
  repo: RepoSlug,
  base_commit: z.string().regex(/^[0-9a-f]{40}$/, 'must be a full commit sha'),
  problem_statement: z.string().trim().min(1, 'must not be empty'),
  patch: z.string(),
  test_patch: z.string().min(1, 'must not be empty: the hidden tests are what grades an attempt'),
  FAIL_TO_PASS: TestList.refine((l) => l.length > 0, 'must name at least one test'),
  PASS_TO_PASS: TestList,
  created_at: z.string().optional(),
  hints_text: z.string().optional(),
});
export type EvalTask = z.infer<typeof EvalTask>;

/** One line of a tasks file, as SWE-bench's published files write it (test lists as JSON text). */
export function taskLine(task: EvalTask): string {
  return JSON.stringify({
    instance_id: task.instance_id,
    repo: task.repo,
    base_commit: task.base_commit,
    problem_statement: task.problem_statement,
    patch: task.patch,
    test_patch: task.test_patch,
    FAIL_TO_PASS: JSON.stringify(task.FAIL_TO_PASS),
    PASS_TO_PASS: JSON.stringify(task.PASS_TO_PASS),
    ...(task.created_at ? { created_at: task.created_at } : {}),
    hints_text: task.hints_text ?? '',
  });
}

/**
 * The tasks of a JSONL file (one instance per line, blank lines skipped). Every problem is
 * reported at once, by line and field; an instance id given twice is refused.
 */
export function readTasks(text: string, source = 'tasks'): EvalTask[] {
  const tasks: EvalTask[] = [];
  const issues: { field: string; reason: string }[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const where = `${source} line ${i + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      issues.push({ field: where, reason: 'not JSON' });
      return;
    }
    const parsed = EvalTask.safeParse(json);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        issues.push({ field: `${where}: ${issue.path.join('.') || '(line)'}`, reason: issue.message });
      return;
    }
    if (seen.has(parsed.data.instance_id))
      issues.push({ field: `${where}: instance_id`, reason: `${parsed.data.instance_id} is given twice` });
    seen.add(parsed.data.instance_id);
    tasks.push(parsed.data);
  });
  if (issues.length > 0)
    throw new ValidationError(
      issues.map((i) => `${i.field}: ${i.reason}`).join('; '),
      issues.map((i) => ({ field: i.field, reason: i.reason })),
    );
  if (tasks.length === 0)
    throw new ValidationError(`${source}: no tasks`, [{ field: source, reason: 'holds no task' }]);
  return tasks;
}
