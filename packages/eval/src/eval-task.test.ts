import { describe, expect, it } from 'vitest';
import { readTasks, taskLine } from './eval-task.ts';

const SHA = 'a'.repeat(40);
const published = {
  repo: 'astropy/astropy',
  instance_id: 'astropy__astropy-12907',
  base_commit: SHA,
  patch: 'diff --git a/x b/x\n',
  test_patch: 'diff --git a/t b/t\n',
  problem_statement: 'Modeling separability is wrong for nested CompoundModels',
  hints_text: '',
  created_at: '2022-03-03T15:14:54Z',
  version: '4.3',
  // The published dataset's encoding: JSON text.
  FAIL_TO_PASS: '["astropy/modeling/tests/test_separable.py::test_separable[compound_model6-result6]"]',
  PASS_TO_PASS: '["astropy/modeling/tests/test_separable.py::test_coord_matrix"]',
  environment_setup_commit: SHA,
};

describe('tasks files in the SWE-bench instance format', () => {
  it('reads the published encoding (test lists as JSON text) and plain arrays; other fields are ignored', () => {
    const [a, b] = readTasks(
      `${JSON.stringify(published)}\n\n${JSON.stringify({ ...published, instance_id: 'x-2', FAIL_TO_PASS: ['t1'], PASS_TO_PASS: [] })}\n`,
    );
    expect(a!.FAIL_TO_PASS).toEqual([
      'astropy/modeling/tests/test_separable.py::test_separable[compound_model6-result6]',
    ]);
    expect(a!.PASS_TO_PASS).toEqual(['astropy/modeling/tests/test_separable.py::test_coord_matrix']);
    expect(a).not.toHaveProperty('version');
    expect(b!.FAIL_TO_PASS).toEqual(['t1']);
  });

  it('writes what it reads, test lists as JSON text', () => {
    const [task] = readTasks(JSON.stringify(published));
    const line = taskLine(task!);
    expect(JSON.parse(line).FAIL_TO_PASS).toBe(published.FAIL_TO_PASS);
    expect(readTasks(line)).toEqual([task]);
  });

  it('reports every problem at once, by line and field', () => {
    const bad = [
      JSON.stringify({ ...published, base_commit: 'main' }),
      'not json',
      JSON.stringify({ ...published, FAIL_TO_PASS: '[]' }),
      JSON.stringify({ ...published, PASS_TO_PASS: 'nope' }),
      JSON.stringify(published),
      JSON.stringify(published),
    ].join('\n');
    expect(() => readTasks(bad, 'tasks.jsonl')).toThrow(
      'tasks.jsonl line 1: base_commit: must be a full commit sha; tasks.jsonl line 2: not JSON; ' +
        'tasks.jsonl line 3: FAIL_TO_PASS: must name at least one test; ' +
        'tasks.jsonl line 4: PASS_TO_PASS: must be a list of test names (a JSON array, or its JSON text); ' +
        'tasks.jsonl line 6: instance_id: astropy__astropy-12907 is given twice',
    );
    expect(() => readTasks('\n\n', 'empty.jsonl')).toThrow('empty.jsonl: no tasks');
  });

  it('refuses an instance id that could not name a file or a metric series', () => {
    expect(() => readTasks(JSON.stringify({ ...published, instance_id: '../../etc/passwd' }))).toThrow(
      /instance_id: letters, digits/,
    );
  });
});
