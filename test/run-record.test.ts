import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ScriptedModel, type ScriptedReply, textReply } from '@pullwright/agent/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCEPT_REPLY,
  createAnswerRepo,
  editAnswer,
  fixedReply,
  GIVES_UP,
  jsonReply,
  TWO_REPAIRS,
  TWO_REPAIRS_RECORD,
} from './support/answer-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

/**
 * The run record (issue 21, seeds 002–004): numbered artifacts per model call and per check
 * run, the reports, stored with the operation and served over REST, never on the branch;
 * a failed operation's report; per-step verification switched on by `.pullwright.yml`.
 */

type Reply = ScriptedReply;
const text = textReply;
const json = jsonReply;
const edit = editAnswer;
const fixed = (round: number, to: number) => fixedReply(round, to, 'fail');

let sys: TestSystem;
const scripts = new Map<string, Reply[]>();
let seq = 0;

beforeAll(async () => {
  sys = await startTestSystem({ env: { MAX_REPAIRS: '3', MAX_TURNS: '40' } });
  sys.runtime.createProvider = (op) => new ScriptedModel(scripts.get(op.repo) ?? [], 'replay:record');
}, 60_000);
afterAll(() => sys?.stop());

function createRepo(extra: Record<string, string> = {}): Promise<string> {
  return createAnswerRepo(sys.runtime.localForge!, `acme/record${++seq}`, extra);
}

async function start(repo: string, replies: Reply[]): Promise<string> {
  scripts.set(repo, replies);
  const res = await sys.request('POST', '/v1/operations', {
    type: 'fix',
    repo,
    description: 'Make the answer test pass',
    budget: { turns: 30 },
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

/** A revision of `id` played by `replies`; resolves with the status event that handed the PR back. */
async function revise(id: string, requestId: string, replies: Reply[]) {
  const op = await sys.runtime.store.get(id);
  scripts.set(op.repo, replies);
  await sys.runtime.actions.revise(
    id,
    { user: 'maria', source: 'github' },
    { requestId, feedback: [{ id: 7, kind: 'issue_comment', user: 'maria', body: 'please check the answer' }] },
  );
  let back: Awaited<ReturnType<typeof sys.runtime.events.list>>[number] | undefined;
  await expect
    .poll(
      async () => {
        back = (await sys.runtime.events.list(id)).find(
          (e) => e.type === 'status' && e.data.revision === requestId && e.data.to === 'awaiting_approval',
        );
        return back !== undefined && (await sys.runtime.store.get(id)).status === 'awaiting_approval';
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  return back!;
}

async function artifact(id: string, name: string): Promise<string> {
  const res = await sys.request('GET', `/v1/operations/${id}/artifacts/${name}`);
  expect(res.status, name).toBe(200);
  return res.text();
}

describe('the run record', () => {
  it('an operation with two repair rounds leaves the numbered files in order, each with its content, over REST and not on the branch', async () => {
    const repo = await createRepo();
    const id = await start(repo, TWO_REPAIRS);
    const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    expect(op.error).toBeUndefined();

    const list = await sys.request('GET', `/v1/operations/${id}/artifacts`);
    expect(list.status).toBe(200);
    const names = ((await list.json()) as { artifacts: { name: string; url: string }[] }).artifacts.map((a) => a.name);
    expect(names).toEqual([
      ...TWO_REPAIRS_RECORD,
      'LINT_REPORT.json',
      'PLAN.json',
      'REVIEW.json',
      'TEST_REPORT.json',
      'transcript.jsonl',
    ]);

    // Model calls: the role, the turn, what was new in the request and the answer.
    const plan = JSON.parse(await artifact(id, '001-plan.json'));
    expect(plan).toMatchObject({ role: 'planner', turn: 1, model: 'replay:record', stop_reason: 'end_turn' });
    expect(plan.system).toContain('Role: planner');
    expect(JSON.stringify(plan.input)).toContain('Make the answer test pass');
    expect(JSON.parse(await artifact(id, '002-code.json'))).toMatchObject({
      role: 'coder',
      turn: 1,
      output: [{ type: 'tool_use', name: 'edit_file', input: { oldText: 'answer = 41' } }],
    });
    const secondCoderTurn = JSON.parse(await artifact(id, '003-code.json'));
    expect(secondCoderTurn.system).toBeUndefined();
    expect(secondCoderTurn.input).toMatchObject([{ type: 'tool_result' }]);
    expect(JSON.parse(await artifact(id, '007-fix.json')).output[0].text).toContain('"attempts":1');
    expect(JSON.parse(await artifact(id, '014-review.json')).output[0].text).toContain('"decision":"accept"');

    // Check runs: command, exit code, duration, output — red twice, then green.
    const red = await artifact(id, '005-test.txt');
    expect(red).toMatch(/^check: test\ncommand: npm test\nexit code: 1\nduration: \d+ ms\nresult: failed\n/);
    expect(red).toContain('actual: 42');
    expect(await artifact(id, '009-test.txt')).toContain('actual: 43');
    expect(await artifact(id, '013-test.txt')).toMatch(/exit code: 0\n[\s\S]*result: passed[\s\S]*ok 1 - answer is 44/);
    expect(await artifact(id, '012-lint.txt')).toContain('lint: 0 problems');

    // The reports: the last run of each check, with counts and the first failing trace.
    expect(JSON.parse(await artifact(id, 'TEST_REPORT.json'))).toEqual({
      plan_id: 'plan_0001',
      passed: 1,
      failed: 0,
      checks: [
        expect.objectContaining({
          name: 'test',
          passed: true,
          exit_code: 0,
          tests: { passed: 1, failed: 0 },
          failing_tests: [],
          first_failure: null,
        }),
      ],
    });
    expect(JSON.parse(await artifact(id, 'LINT_REPORT.json'))).toMatchObject({
      passed: 1,
      failed: 0,
      checks: [{ name: 'lint' }],
    });
    expect(JSON.parse(await artifact(id, 'PLAN.json'))).toMatchObject({
      plan_id: 'plan_0001',
      steps: [{ id: 'T1', title: 'Fix the answer', tests: ['test'] }],
    });
    expect(JSON.parse(await artifact(id, 'REVIEW.json'))).toEqual({
      decision: 'accept',
      reasons: ['the test passes'],
      must_fix: [],
    });

    // The fixer's strict JSON reached the timeline.
    const events = await sys.runtime.events.list(id);
    expect(events.filter((e) => e.type === 'fix_report').map((e) => e.data)).toMatchObject([
      { round: 1, valid: true, report: { status: 'fixed', attempts: 1 } },
      { round: 2, valid: true, report: { status: 'fixed', attempts: 2, build_status: 'pass' } },
    ]);
    expect(op.plan).toMatchObject({ plan_id: 'plan_0001', steps: [{ id: 'T1' }] });

    // Stored with the operation, never committed: the branch holds the change and nothing else.
    const bare = path.join(sys.dataDir, 'forge', `${repo}.git`);
    const tree = execFileSync('git', ['-C', bare, 'ls-tree', '-r', '--name-only', op.branch!], { encoding: 'utf8' });
    expect(tree.trim().split('\n').sort()).toEqual(['lint.js', 'package.json', 'src/app.js', 'test.js']);

    // A revision's model calls join the same record, numbered on from where the run stopped.
    await revise(id, 'review', [text('Nothing to change: the answer is already right.')]);
    expect(JSON.parse(await artifact(id, '015-code.json'))).toMatchObject({ role: 'coder', turn: 1 });

    // A revision that breaks the test gets its fixer rounds (this script's fixer changes nothing,
    // so the same failure comes back), then hands the PR back; its report is the tracking comment.
    const back = await revise(id, 'comment', [edit(44, 45), text('Changed it to 45.')]);
    expect(back.data.revisionFailed).toMatch(
      /^stuck: the same failure \(answer is at most 44\) came back after two repairs\ncheck "test" exited with 1/,
    );
    const comment = await sys.runtime.localForge!.trackingComment(repo, op.pullRequest!.number);
    expect(comment).toContain('## The revision could not be completed; the branch is unchanged\n\n### Summary');
    expect(comment).toContain('- check `test` exited with 1; failing: answer is at most 44');
    expect(comment).toContain('  not ok 3 - answer is at most 44\n    actual: 45');
    expect(comment).toContain('### Partial changes\n- `src/app.js`');
    expect(comment).toContain('### Recommendation');
  });

  it('a failed operation ends with a report: Summary, Issues, Partial changes with the kept diff, Recommendation', async () => {
    const repo = await createRepo();
    const id = await start(repo, GIVES_UP);
    const op = await waitForStatus(sys, id, ['failed', 'awaiting_approval']);
    expect(op.status).toBe('failed');
    const report = op.failureReport!;
    expect(report).toMatch(/^## fix failed\n\n### Summary\nAttempted: Make the answer test pass\. It stopped: stuck: /);
    const sections = report.match(/^### .+$/gm);
    expect(sections).toEqual(['### Summary', '### Issues', '### Partial changes', '### Recommendation']);
    expect(report).toContain('- check `test` exited with 1; failing: answer is 44');
    expect(report).toContain('  not ok 2 - answer is 44\n    expected: 44\n    actual: 42');
    expect(report).toContain('- fixer (round 2) left: answer is 42, the test wants 44');
    expect(report).toContain('- `src/app.js`\n\nThe diff was kept (not pushed) as the `kept.diff` artifact:');
    expect(report).toMatch(/```diff\n[\s\S]*-export const answer = 41;\n\+export const answer = 42;/);
    expect(report).toContain('The same failure came back after repairs');
    expect(await artifact(id, 'kept.diff')).toContain('+export const answer = 42;');
    // The run record of a failure is complete too: the last red test run and its report.
    expect(JSON.parse(await artifact(id, 'TEST_REPORT.json'))).toMatchObject({
      failed: 1,
      checks: [{ name: 'test', tests: { passed: 1, failed: 1 }, first_failure: expect.stringMatching(/^not ok 2/) }],
    });
  });

  it('per-step verification, switched on in .pullwright.yml: each step is checked before the next starts', async () => {
    const repo = await createRepo({ '.pullwright.yml': 'verification:\n  per_step: true\n' });
    const id = await start(repo, [
      json({
        summary: 'Two steps',
        steps: [
          { title: 'Fix the answer', files: ['src/app.js'], acceptance: 'test passes', tests: ['test'] },
          { title: 'Nothing else', files: [], acceptance: 'nothing', tests: [] },
        ],
      }),
      edit(41, 43),
      text('T1 done.'),
      edit(43, 44),
      fixed(1, 44),
      text('T2: nothing to change.'),
      ACCEPT_REPLY,
    ]);
    const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    expect(op.error).toBeUndefined();
    const events = await sys.runtime.events.list(id);
    const order = events
      .filter(
        (e) => e.type === 'plan_step' || e.type === 'fix_report' || (e.type === 'check' && e.data.name === 'test'),
      )
      .map((e) =>
        e.type === 'plan_step'
          ? `${e.data.taskId} ${e.data.state}`
          : e.type === 'check'
            ? `test ${e.data.passed ? 'green' : 'red'}`
            : `fixer on ${e.data.taskId}`,
      );
    expect(order).toEqual([
      'T1 started',
      'test red',
      'fixer on T1',
      'test green',
      'T1 verified',
      'T2 started',
      'T2 done',
      'test green',
    ]);
  });
});
