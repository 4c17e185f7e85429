import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PathGuard } from '@pullwright/security';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BudgetTracker } from './budget-tracker.ts';
import { MAX_FILE_IN_PROMPT } from './prompt-files.ts';
import { priceTableWith } from './providers/price-table.ts';
import { ScriptedModel, textReply, toolCall } from './providers/testing/scripted-model.ts';
import type { FixReportEntry, PlanStepEvent, SolveInput } from './solve-request.ts';
import { solveRequest } from './solve-request.ts';
import type { CheckRun, CheckRunner } from './tools/define-tool.ts';

const text = textReply;
const tool = toolCall;
const json = (v: unknown) => text(JSON.stringify(v));
const ACCEPT = json({ decision: 'accept', reasons: ['done'], must_fix: [] });
const fixReport = (round: number, file: string) => ({
  status: 'fixed',
  fixes_applied: [{ file, line: 1, error_type: 'failing_assertion', description: `round ${round} fix` }],
  build_status: 'pass',
  remaining_errors: [],
  attempts: round,
});

/** A `test` check whose verdicts come from a list (then the last one repeats); every run is logged. */
function scriptedChecks(verdicts: boolean[], log: string[]): CheckRunner {
  let i = 0;
  return {
    names: () => ['test'],
    async run(name): Promise<CheckRun> {
      const passed = verdicts[Math.min(i++, verdicts.length - 1)]!;
      log.push(`check ${name} ${passed ? 'green' : 'red'}`);
      return {
        name,
        command: 'npm test',
        passed,
        exitCode: passed ? 0 : 1,
        durationMs: 5,
        output: passed ? 'ok 1 - works' : 'not ok 1 - works',
        timedOut: false,
        failingTests: passed ? [] : ['works'],
      };
    },
  };
}

describe('solveRequest: fixer reports, per-step verification, prompt files', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'pw-solve-'));
    await mkdir(path.join(root, 'src'));
    await writeFile(path.join(root, 'src/a.js'), 'export const a = 1;\n');
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  function solve(model: ScriptedModel, checks: CheckRunner, extra: Partial<SolveInput> = {}) {
    const changed = new Set<string>();
    const reports: FixReportEntry[] = [];
    const steps: PlanStepEvent[] = [];
    const result = solveRequest({
      type: 'implement',
      task: 'Change a and b',
      repoMap: 'src/a.js',
      provider: model,
      context: {
        root,
        guard: new PathGuard(root),
        checks,
        onWrite: async (rel) => void changed.add(rel),
      },
      baseline: Promise.resolve({ test: { passed: true, failingTests: [] } }),
      budget: new BudgetTracker(
        { turns: 60, tokens: 1e6, wallMs: 60_000, costUsd: 5 },
        { prices: priceTableWith({ scripted: { input: 0, output: 0 } }) },
      ),
      diff: async () => 'diff',
      changedFiles: async () => [...changed],
      readFile: (rel) => readFile(path.join(root, rel), 'utf8').catch(() => undefined),
      onFixReport: async (e) => void reports.push(e),
      onPlanStep: async (e) => void steps.push(e),
      ...extra,
    });
    return { result, reports, steps };
  }

  it("the fixer's outcome is strict JSON: a valid report is kept, an invalid one gets one corrective turn", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      json({ summary: 's', steps: [{ title: 'Edit a', files: ['src/a.js'], acceptance: 'test passes' }] }),
      tool('edit_file', { path: 'src/a.js', oldText: 'a = 1', newText: 'a = 2' }),
      text('Edited.'),
      // Round 1: a valid report straight away.
      tool('edit_file', { path: 'src/a.js', oldText: 'a = 2', newText: 'a = 3' }),
      json(fixReport(1, 'src/a.js')),
      // Round 2: prose first (refused with the schema problem), then valid JSON.
      tool('edit_file', { path: 'src/a.js', oldText: 'a = 3', newText: 'a = 4' }),
      text('I fixed it, the build passes now.'),
      json(fixReport(2, 'src/a.js')),
      ACCEPT,
    ]);
    const { result, reports } = solve(model, scriptedChecks([false, false, true], log));
    const r = await result;
    expect(r.outcome).toBe('ready');
    expect(reports).toEqual([
      { round: 1, valid: true, report: fixReport(1, 'src/a.js') },
      { round: 2, valid: true, report: fixReport(2, 'src/a.js') },
    ]);
    expect(r.fixReports).toEqual(reports);
    const corrective = model.calls
      .filter((c) => c.role === 'fixer')
      .at(-1)!
      .request.messages.at(-1)!;
    expect(JSON.stringify(corrective)).toContain('That answer is not valid: the answer contains no JSON object');
    // The plan carries stable ids, whatever the model wrote.
    expect(r.plan).toMatchObject({ plan_id: 'plan_0001', steps: [{ id: 'T1', title: 'Edit a', tests: [] }] });
  });

  it('a fixer report that stays invalid is recorded as such (the checks, not the report, decide)', async () => {
    const model = new ScriptedModel([
      json({ summary: 's', steps: [{ title: 'Edit a', files: ['src/a.js'], acceptance: 'ok' }] }),
      tool('edit_file', { path: 'src/a.js', oldText: 'a = 1', newText: 'a = 2' }),
      text('Edited.'),
      json({ status: 'maybe', attempts: 1 }),
      json({ status: 'fixed', build_status: 'pass', attempts: 1, extra: true }),
      ACCEPT,
    ]);
    const { result, reports } = solve(model, scriptedChecks([false, true], []));
    expect((await result).outcome).toBe('ready');
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ round: 1, valid: false });
    expect(reports[0]!.problem).toMatch(/Unrecognized key: "extra"/);
  });

  it('per-step verification: a red step goes to the fixer before the next step starts', async () => {
    const log: string[] = [];
    const plan = {
      summary: 'two steps',
      steps: [
        { title: 'Change a', files: ['src/a.js'], acceptance: 'test passes', tests: ['test'] },
        { title: 'Add b', files: ['src/b.js'], acceptance: 'test passes', tests: ['test'] },
      ],
    };
    const model = new ScriptedModel([
      json(plan),
      tool('edit_file', { path: 'src/a.js', oldText: 'a = 1', newText: 'a = 2' }),
      text('T1 done.'),
      tool('edit_file', { path: 'src/a.js', oldText: 'a = 2', newText: 'a = 3' }),
      json(fixReport(1, 'src/a.js')),
      tool('write_file', { path: 'src/b.js', content: 'export const b = 1;\n' }),
      text('T2 done.'),
      ACCEPT,
    ]);
    const { result, steps, reports } = solve(model, scriptedChecks([false, true, true, true], log), {
      perStepVerification: true,
    });
    const r = await result;
    expect(r.outcome).toBe('ready');
    // Who spoke when: the fixer repaired T1 before the coder was given T2.
    expect(model.calls.map((c) => c.role)).toEqual([
      'planner',
      'coder',
      'coder',
      'fixer',
      'fixer',
      'coder',
      'coder',
      'reviewer',
    ]);
    const coderTasks = model.calls
      .filter((c) => c.role === 'coder' && c.request.messages.length === 1)
      .map((c) => JSON.stringify(c.request.messages[0]));
    expect(coderTasks[0]).toContain('Work on step T1 only');
    expect(coderTasks[1]).toContain('Work on step T2 only');
    expect(log).toEqual(['check test red', 'check test green', 'check test green', 'check test green']);
    expect(steps.map((s) => `${s.taskId} ${s.state}`)).toEqual([
      'T1 started',
      'T1 verified',
      'T2 started',
      'T2 verified',
    ]);
    expect(reports).toEqual([{ round: 1, taskId: 'T1', valid: true, report: fixReport(1, 'src/a.js') }]);
    expect(JSON.stringify(model.calls[3]!.request.messages[0])).toContain('This is step T1 of the plan');
  });

  it('per-step verification: a step still red after its repairs blocks every later step', async () => {
    const model = new ScriptedModel([
      json({
        summary: 'two steps',
        steps: [
          { title: 'Change a', files: ['src/a.js'], acceptance: 'green', tests: ['test'] },
          { title: 'Add b', files: ['src/b.js'], acceptance: 'green', tests: ['test'] },
        ],
      }),
      tool('edit_file', { path: 'src/a.js', oldText: 'a = 1', newText: 'a = 2' }),
      text('T1 done.'),
      json(fixReport(1, 'src/a.js')),
    ]);
    const { result, steps } = solve(model, scriptedChecks([false], []), { perStepVerification: true, maxRepairs: 1 });
    const r = await result;
    expect(r.outcome).toBe('checks_failed');
    expect(r.reason).toBe(
      'step T1 ("Change a") still failing after 1 repair rounds: test; the later steps were not started',
    );
    expect(steps.map((s) => `${s.taskId} ${s.state}`)).toEqual(['T1 started', 'T1 failed']);
    expect(model.calls.map((c) => c.role)).toEqual(['planner', 'coder', 'coder', 'fixer']);
    expect(await readFile(path.join(root, 'src/b.js'), 'utf8').catch(() => 'absent')).toBe('absent');
  });

  it('a check a plan step names that the repository does not have is dropped with a note, not a failure', async () => {
    const phases: { phase: string; data: Record<string, unknown> }[] = [];
    const log: string[] = [];
    const model = new ScriptedModel([
      json({
        summary: 's',
        steps: [
          { title: 'Edit a', files: ['src/a.js'], acceptance: 'y', tests: ['e2e', 'test'] },
          { title: 'Document a', files: [], acceptance: 'y', tests: ['docs'] },
        ],
      }),
      tool('edit_file', { path: 'src/a.js', oldText: 'a = 1', newText: 'a = 2' }),
      text('T1 done.'),
      text('T2 done.'),
      ACCEPT,
    ]);
    const r = await solve(model, scriptedChecks([true], log), {
      perStepVerification: true,
      onPhase: async (phase, data) => void phases.push({ phase, data }),
    }).result;
    expect(r.outcome).toBe('ready');
    expect(model.calls.filter((c) => c.role === 'planner')).toHaveLength(1);
    expect(r.plan?.steps.map((st) => st.tests)).toEqual([['test'], []]);
    expect(phases.find((p) => p.phase === 'plan' && p.data.plan)?.data.note).toBe(
      'dropped checks the repository does not have (T1 named "e2e", T2 named "docs"); its checks are: test',
    );
    // T1's known check still verified it; T2 had none left to run.
    expect(log).toEqual(['check test green', 'check test green']);
  });

  it('a plan of more than ten steps is sent back (seed 000: at most 10 changes per request)', async () => {
    const step = { title: 'x', files: [], acceptance: 'y' };
    const long = json({ summary: 's', steps: Array.from({ length: 11 }, () => step) });
    const r = await solve(new ScriptedModel([long, long]), scriptedChecks([true], [])).result;
    expect(r.outcome).toBe('invalid_plan');
    expect(r.reason).toContain('steps: at most 10 steps');
  });

  it('a revision (no planner, no reviewer): a check green where it started stays green even when red on the base', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      tool('edit_file', { path: 'src/a.js', oldText: 'a = 1', newText: 'a = 2' }),
      text('Edited.'),
      tool('edit_file', { path: 'src/a.js', oldText: 'a = 2', newText: 'a = 3' }),
      json(fixReport(1, 'src/a.js')),
    ]);
    const { result, reports } = solve(model, scriptedChecks([false, true], log), {
      type: 'revise',
      skipPlan: true,
      skipReview: true,
      // The base fails the same way: alone, that would make the red check pre-existing.
      baseline: Promise.resolve({ test: { passed: false, failingTests: ['works'] } }),
      mustStayGreen: ['test'],
    });
    const r = await result;
    expect(r).toMatchObject({ outcome: 'ready', repairs: 1, preExisting: [] });
    expect(model.calls.map((c) => c.role)).toEqual(['coder', 'coder', 'fixer', 'fixer']);
    expect(reports).toEqual([{ round: 1, valid: true, report: fixReport(1, 'src/a.js') }]);
    expect(log).toEqual(['check test red', 'check test green']);
  });

  it('a changed file too large for the repair prompt is named as omitted, never cut silently', async () => {
    const big = `${'// filler line\n'.repeat(Math.ceil(MAX_FILE_IN_PROMPT / 15) + 10)}`;
    const model = new ScriptedModel([
      tool('write_file', { path: 'src/big.js', content: big }),
      text('Wrote it.'),
      json(fixReport(1, 'src/big.js')),
      ACCEPT,
    ]);
    const r = await solve(model, scriptedChecks([false, true], []), { skipPlan: true }).result;
    expect(r.outcome).toBe('ready');
    const fixerTask = JSON.stringify(model.calls.find((c) => c.role === 'fixer')!.request.messages[0]);
    expect(fixerTask).toContain(
      `--- FILE OMITTED src/big.js (${big.length} characters, over the ${MAX_FILE_IN_PROMPT}-character limit of this prompt; read it with read_file and a line range) ---`,
    );
    expect(fixerTask).not.toContain('// filler line');
  });

  it('text-edit mode refuses a whole-file block for a file the model was shown only in part', async () => {
    const big = 'x'.repeat(MAX_FILE_IN_PROMPT + 100);
    await writeFile(path.join(root, 'src/big.js'), big);
    const model = new ScriptedModel([
      json({ summary: 's', steps: [{ title: 'Edit big', files: ['src/big.js'], acceptance: 'ok' }] }),
      text('^^^src/big.js\nshort\n^^^end'),
    ]);
    const r = await solve(model, scriptedChecks([true], []), { editMode: 'text', maxRepairs: 0 }).result;
    expect(r.outcome).toBe('checks_failed');
    expect(r.reason).toContain(
      'src/big.js was shown to you only in part (it is too large for the prompt); a whole-file block would drop the rest of it',
    );
    expect(JSON.stringify(model.calls[1]!.request.messages[0])).toContain(
      `--- FILE src/big.js (PARTIAL: the first ${MAX_FILE_IN_PROMPT} of ${big.length} characters; a whole-file block for it is refused) ---`,
    );
    expect(await readFile(path.join(root, 'src/big.js'), 'utf8')).toBe(big);
  });
});
