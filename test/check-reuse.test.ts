import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Operation, OperationEvent } from '@pullwright/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel, type Turn, text, tool } from './support/scripted-model.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

/**
 * Time to PR (issue 16): the model's loop does not wait for the baseline, and a warm
 * worker runs the suite once per change. The base's test run here cannot end until the
 * model has been called — it waits for a file the first model turn writes — so a loop that
 * waited for the baseline would never start, and this test would time out instead of passing.
 */

const REPO = 'acme/reuse';
const PLAN = text(
  JSON.stringify({
    summary: 'Make the answer 42',
    steps: [{ title: 'Edit the answer', files: ['src/app.js'], acceptance: 'tests pass' }],
  }),
);
const ACCEPT = text(JSON.stringify({ decision: 'accept', reasons: ['small and tested'] }));

let sys: TestSystem;
let mirror: string;
const scripts: Turn[][] = [];

beforeAll(async () => {
  sys = await startTestSystem();
  sys.runtime.createProvider = () => new ScriptedModel(scripts.shift() ?? []);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-reuse-'));
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'reuse', type: 'module', scripts: { test: 'node test.js' } }),
  );
  writeFileSync(path.join(dir, 'app.js'), 'export const answer = 41;\n');
  writeFileSync(
    path.join(dir, 'test.js'),
    [
      "import { existsSync, readFileSync } from 'node:fs';",
      "import path from 'node:path';",
      "import { answer } from './app.js';",
      // On the base, wait for `go` in the mirror (read-only in the sandbox; found through the
      // worktree's .git file): the test writes it from the model's first turn.
      'if (answer === 41) {',
      "  const gitdir = readFileSync('.git', 'utf8').replace('gitdir:', '').trim();",
      "  const go = path.join(gitdir, '..', '..', 'go');",
      '  while (!existsSync(go)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);',
      '}',
      "if (answer !== 42) { console.log('not ok 1 - answer is 42'); process.exit(1); }",
      "console.log('ok 1 - answer is 42');",
    ].join('\n'),
  );
  await sys.runtime.localForge!.createRepository(REPO, {}, { fromDir: dir });
  rmSync(dir, { recursive: true, force: true });
  mirror = sys.runtime.workspace.mirrorDir(REPO);
}, 60_000);

afterAll(async () => {
  await sys?.stop();
});

/** One operation whose fix writes `answer = 42` plus `note`, so each operation's change is its own tree. */
async function operation(note: string, firstTurn: Turn): Promise<{ op: Operation; events: OperationEvent[] }> {
  scripts.push([
    firstTurn,
    tool('run_check', { name: 'test' }),
    tool('edit_file', { path: 'app.js', oldText: 'answer = 41;', newText: `answer = 42; // ${note}` }),
    tool('run_check', { name: 'test' }),
    text('Done.'),
    ACCEPT,
  ]);
  const res = await sys.request('POST', '/v1/operations', { type: 'implement', repo: REPO, description: 'Make it 42' });
  expect(res.status).toBe(202);
  const id = ((await res.json()) as { id: string }).id;
  const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
  expect(op.error).toBeUndefined();
  return { op, events: await sys.runtime.events.list(id) };
}

const checkEvents = (events: OperationEvent[]) =>
  events.filter((e) => e.type === 'check').map((e) => ({ passed: e.data.passed, reused: e.data.reused === true }));
const baselineEvents = (events: OperationEvent[]) =>
  events.filter((e) => e.type === 'step' && e.data.step === 'baseline' && e.data.state !== 'started');

describe('time to PR', () => {
  it('the model starts while the baseline runs, and its reproduction waits for that run instead of a second one', async () => {
    let seenAtFirstCall: OperationEvent[] = [];
    const { op, events } = await operation('first', async () => {
      const [current] = await sys.runtime.store.list({ repo: REPO });
      seenAtFirstCall = baselineEvents(await sys.runtime.events.list(current!.id));
      writeFileSync(path.join(mirror, 'go'), '');
      return PLAN;
    });
    // At the first model call the baseline step had handed its run to the background, not finished it.
    expect(seenAtFirstCall.map((e) => e.data)).toEqual([expect.objectContaining({ state: 'finished', cached: false })]);
    expect(baselineEvents(events).map((e) => e.data)).toEqual([
      expect.objectContaining({ state: 'finished', cached: false }),
      expect.objectContaining({ state: 'ready', checks: { test: false } }),
    ]);
    // Reproduction: the baseline's run; after the edit: one real run; verification: that run again.
    expect(checkEvents(events)).toEqual([
      { passed: false, reused: true },
      { passed: true, reused: false },
      { passed: true, reused: true },
    ]);
    expect(op.checks).toEqual([expect.objectContaining({ name: 'test', passed: true })]);
  });

  it('the next operation on the same base runs its suite once: only on its own change', async () => {
    const { events } = await operation('second', PLAN);
    expect(baselineEvents(events).map((e) => e.data)).toEqual([
      expect.objectContaining({ state: 'finished', cached: true, checks: { test: false } }),
    ]);
    expect(checkEvents(events)).toEqual([
      { passed: false, reused: true },
      { passed: true, reused: false },
      { passed: true, reused: true },
    ]);
  });
});
