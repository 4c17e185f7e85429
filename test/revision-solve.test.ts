import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Operation } from '@pullwright/core';
import { eventually } from '@pullwright/testing/eventually';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { spawnWorker, type WorkerProcess } from './chaos/worker-process.ts';
import { ScriptedModel, type Turn, text, tool } from './support/scripted-model.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

/**
 * Issue 26, item 5: a revision takes the run's one solve path — the fixer rounds, the journal
 * a retried job continues from, and the edit mode (`LLM_EDIT_MODE=text`).
 */

const PLAN = JSON.stringify({
  summary: 'Change the answer',
  steps: [{ title: 'Edit the answer', files: ['src/app.js'], acceptance: 'tests pass' }],
});
const ACCEPT = JSON.stringify({ decision: 'accept', reasons: ['small and tested'], must_fix: [] });
const REPLY = '{"replies":[{"comment":"C1","outcome":"fixed","note":"Changed as asked."}]}';
const edit = (from: string, to: string) =>
  tool('edit_file', { path: 'src/app.js', oldText: `answer = ${from}`, newText: `answer = ${to}` });

let sys: TestSystem | undefined;
const workers: WorkerProcess[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await w.exited;
  }
  await sys?.stop();
  sys = undefined;
});

/** A repository whose `test` check fails unless `answer` is a number; `slowMs`: the check takes that long. */
async function createRepo(system: TestSystem, repo: string, slowMs = 0): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-revision-solve-'));
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'revision-solve', type: 'module', scripts: { test: 'node test.js' } }),
    'src/app.js': 'export const answer = 41;\n',
    'test.js': [
      "import { answer } from './src/app.js';",
      `await new Promise((resolve) => setTimeout(resolve, ${slowMs}));`,
      "if (typeof answer !== 'number') { console.log('not ok 1 - answer is a number'); process.exit(1); }",
      "console.log('ok 1 - answer is a number');",
    ].join('\n'),
  };
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  await system.runtime.localForge!.createRepository(repo, {}, { fromDir: dir });
  rmSync(dir, { recursive: true, force: true });
}

/** Opens the operation's PR with a scripted run; returns it at awaiting approval. */
async function openPullRequest(system: TestSystem, repo: string): Promise<Operation> {
  const res = await system.request('POST', '/v1/operations', { type: 'implement', repo, description: 'Change it' });
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as { id: string };
  const opened = await waitForStatus(system, id, ['awaiting_approval', 'failed']);
  expect(opened).toMatchObject({ status: 'awaiting_approval' });
  return opened;
}

/** Asks for a revision (what the GitHub review handler enqueues); resolves once it is back at approval on a new head. */
async function revise(system: TestSystem, op: Operation, body: string): Promise<Operation> {
  const before = op.pullRequest!.headSha;
  await system.runtime.actions.revise(
    op.id,
    { user: 'maria', source: 'github' },
    { requestId: `review-${op.id}`, feedback: [{ id: 7, kind: 'review', user: 'maria', body }] },
  );
  let last: Operation | undefined;
  return eventually(
    () => `the revision of ${op.id} ends on a new head (status ${last?.status}, error ${last?.error})`,
    async () => {
      last = await system.runtime.store.get(op.id);
      const round = last.ledger?.at(-1);
      if (round?.state === 'failed') throw new Error(`the revision failed: ${round.error}`);
      return last.status === 'awaiting_approval' && last.pullRequest?.headSha !== before ? last : undefined;
    },
    { timeoutMs: 90_000 },
  );
}

/** `src/app.js` as the forge has it at `sha`. */
function appAt(system: TestSystem, repo: string, sha: string): string {
  return execFileSync('git', ['-C', system.runtime.localForge!.repoDir(repo), 'show', `${sha}:src/app.js`], {
    encoding: 'utf8',
  });
}

describe('a revision takes the one solve path', () => {
  it('a revision whose first attempt fails a check gets a fixer round, then passes', async () => {
    sys = await startTestSystem({ env: { MAX_REPAIRS: '1' } });
    const jobs: Turn[][] = [
      [text(PLAN), edit('41', '42'), text('Edited.'), text(ACCEPT)],
      [
        // The coder breaks the check (a string, not a number)…
        edit('42', "'43'"),
        text(`Done.\n${REPLY}`),
        // …and the fixer repairs it in round 1.
        edit("'43'", '43'),
        text(
          JSON.stringify({
            status: 'fixed',
            fixes_applied: [{ file: 'src/app.js', line: 1, error_type: 'failing_assertion', description: 'a number' }],
            build_status: 'pass',
            remaining_errors: [],
            attempts: 1,
          }),
        ),
      ],
    ];
    const models: ScriptedModel[] = [];
    sys.runtime.createProvider = () => {
      const model = new ScriptedModel(jobs.shift() ?? []);
      models.push(model);
      return model;
    };
    const repo = 'acme/revision-fixer';
    await createRepo(sys, repo);
    const op = await openPullRequest(sys, repo);
    const revised = await revise(sys, op, 'Bump the answer to 43.');

    expect(appAt(sys, repo, revised.pullRequest!.headSha)).toBe('export const answer = 43;\n');
    // The revision's conversation: the coder, then the fixer — no planner, no model reviewer.
    expect(models[1]!.requests.map((r) => r.system.match(/Role: (\w+)/)?.[1])).toEqual([
      'coder',
      'coder',
      'fixer',
      'fixer',
    ]);
    const events = await sys.runtime.events.list(op.id);
    const sinceRevision = events.slice(events.findIndex((e) => e.type === 'revision'));
    expect(sinceRevision.filter((e) => e.type === 'phase').map((e) => e.data.phase)).toEqual([
      'code',
      'verify',
      'repair',
      'verify',
    ]);
    expect(sinceRevision.find((e) => e.type === 'fix_report')?.data).toMatchObject({ round: 1, valid: true });
    expect(revised.ledger?.at(-1)?.entries[0]).toMatchObject({ outcome: 'fixed', note: 'Changed as asked.' });
  }, 180_000);

  it('a revision under LLM_EDIT_MODE=text edits by file blocks, no tool offered to any role', async () => {
    sys = await startTestSystem({ env: { LLM_EDIT_MODE: 'text' } });
    const block = (n: number, after: string) => text(`^^^src/app.js\nexport const answer = ${n};\n^^^end\n${after}`);
    const jobs: Turn[][] = [[text(PLAN), block(42, 'Changed the answer.'), text(ACCEPT)], [block(43, REPLY)]];
    const models: ScriptedModel[] = [];
    sys.runtime.createProvider = () => {
      const model = new ScriptedModel(jobs.shift() ?? []);
      models.push(model);
      return model;
    };
    const repo = 'acme/revision-text';
    await createRepo(sys, repo);
    const op = await openPullRequest(sys, repo);
    const revised = await revise(sys, op, 'Bump the answer to 43.');

    expect(appAt(sys, repo, revised.pullRequest!.headSha)).toBe('export const answer = 43;\n');
    const revision = models[1]!.requests;
    expect(revision).toHaveLength(1);
    expect(revision[0]!.tools).toEqual([]);
    // The coder was shown the file the PR changed (it cannot read it itself).
    expect(JSON.stringify(revision[0]!.messages[0])).toContain('--- FILE src/app.js ---');
    expect(revised.ledger?.at(-1)?.entries[0]).toMatchObject({ outcome: 'fixed', note: 'Changed as asked.' });
  }, 180_000);

  it('a revision whose worker is killed resumes from its journal on the next worker', async () => {
    sys = await startTestSystem({ env: { MAX_REPAIRS: '0' } });
    const system = sys;
    const repo = 'acme/revision-resume';
    // Each check run takes a second: the kill lands while the coder's check runs.
    await createRepo(system, repo, 1000);
    const runScript = [text(PLAN), edit('41', '42'), text('Edited.'), text(ACCEPT)];
    system.runtime.createProvider = () => new ScriptedModel(runScript);
    const op = await openPullRequest(system, repo);
    // From here on the revision runs in worker processes, which replay this recording.
    await system.worker?.close();
    system.worker = undefined;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-revision-replay-'));
    const replayFile = path.join(dir, 'revision.replay.json');
    const block = (t: Turn) => ({ content: t as object[] });
    writeFileSync(
      replayFile,
      JSON.stringify({
        turns: [block(edit('42', '43')), block(tool('run_check', { name: 'test' })), block(text(`Done.\n${REPLY}`))],
      }),
    );
    const env = {
      REDIS_URL: inject('redisUrl'),
      VERIFICATION_KEY: system.runtime.config.verificationKey!,
      REDIS_PREFIX: system.runtime.config.redisPrefix,
      DATA_DIR: system.dataDir,
      LLM_PROVIDER: 'replay',
      REPLAY_FILE: replayFile,
      CHECK_TIMEOUT_MS: '60000',
      MAX_REPAIRS: '0',
      // Short job locks: the killed worker's job is taken over in about a second.
      JOB_LOCK_MS: '1000',
      JOB_STALLED_INTERVAL_MS: '300',
    };
    const coderTurns = async () =>
      (await system.runtime.events.list(op.id)).filter((e) => e.type === 'model' && e.data.role === 'coder');
    const runTurns = (await coderTurns()).length;
    try {
      const first = spawnWorker(env);
      workers.push(first);
      await first.ready;
      const revised = revise(system, op, 'Bump the answer to 43.');
      revised.catch(() => undefined);
      // Killed once the coder asked for its check (turn 2): turn 1's edit is journaled by then.
      await eventually(
        'the revision coder asked for turn 2',
        async () => (await coderTurns()).slice(runTurns).some((e) => e.data.turn === 2),
        { timeoutMs: 60_000, intervalMs: 20 },
      );
      first.child.kill('SIGKILL');
      await first.exited;

      const next = spawnWorker(env);
      workers.push(next);
      await next.ready;
      const done = await revised;
      // Turn 1 was not asked again (its edit stayed in the kept worktree); turn 2 was, as it never completed.
      expect(
        (await coderTurns())
          .slice(runTurns)
          .map((e) => e.data.turn)
          .filter((turn) => turn === 1),
      ).toHaveLength(1);
      expect(appAt(system, repo, done.pullRequest!.headSha)).toBe('export const answer = 43;\n');
      expect(done.ledger?.at(-1)?.entries[0]).toMatchObject({ outcome: 'fixed' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
