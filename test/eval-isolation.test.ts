import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ModelRequest } from '@pullwright/agent';
import { EvalRunner, type EvalTask, TaskMiner } from '@pullwright/eval';
import { importRepository, parseImportSource } from '@pullwright/forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKitHistory } from './support/eval-fixture.ts';
import { ScriptedModel, text, tool } from './support/scripted-model.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();
const lines = (out: string) => out.split('\n').filter(Boolean);

/** What an attempt's worktree held, seen from the model's first call (before it changed anything). */
interface Seen {
  objects: string[];
  stored: string[];
  refs: string[];
  remotes: string;
  reflogShas: string[];
  hasMergeCommit: boolean;
  wordsTest: string;
}

/**
 * Issue 33, "runs that cannot peek": an attempt's worktree holds its base and nothing after
 * it (git's own object listing says so), its hidden tests are absent until grading, and an
 * evaluation refuses to run where repository code is not sandboxed.
 */
describe('eval: an attempt cannot peek', () => {
  let sys: TestSystem;
  let home: string;
  let task: EvalTask;
  let mergeSha: string;

  beforeAll(async () => {
    home = mkdtempSync(path.join(os.tmpdir(), 'pw-eval-iso-'));
    sys = await startTestSystem();
    const kit = path.join(home, 'kit');
    buildKitHistory(kit);
    mergeSha = git(kit, 'rev-parse', 'HEAD');
    await importRepository(sys.runtime.config.forgeDir, parseImportSource(kit), 'acme/kit');
    // The newest fix merge (countWords): its base is the commit before it.
    [task] = (await new TaskMiner(sys.runtime).mine('acme/kit', { limit: 1 })).tasks as [EvalTask];
  });
  afterAll(async () => {
    await sys?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("has only the base's objects and one branch; the hidden tests are absent until grading, which finds them", async () => {
    expect(task.instance_id).toBe('acme__kit-5');
    let seen: Seen | undefined;
    sys.runtime.createProvider = (subject) => {
      const dir = sys.runtime.workspace.worktreeDir(subject.id);
      const look = async (_request: ModelRequest) => {
        seen = {
          objects: lines(git(dir, 'rev-list', '--all', '--objects')).map((l) => l.split(' ')[0]!),
          stored: lines(git(dir, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)')),
          refs: lines(git(dir, 'for-each-ref', '--format=%(refname)')),
          remotes: git(dir, 'remote'),
          reflogShas: lines(git(dir, 'reflog', 'show', '--all', '--format=%H')),
          hasMergeCommit: (() => {
            try {
              git(dir, 'cat-file', '-e', mergeSha);
              return true;
            } catch {
              return false;
            }
          })(),
          wordsTest: readFileSync(path.join(dir, 'test/words.test.js'), 'utf8'),
        };
        return text('countWords ignores empty words now.');
      };
      // Looked at once the model's edit went through: a run's worktree is checked out beside
      // its first turn (issue 29), and every tool waits for it.
      return new ScriptedModel([
        text(
          JSON.stringify({
            summary: 'An empty text has no words',
            steps: [{ title: 'Filter empty words', files: ['src/words.js'], acceptance: 'npm test passes' }],
          }),
        ),
        tool('edit_file', {
          path: 'src/words.js',
          oldText: "text.split(' ').length",
          newText: 'text.split(/\\s+/).filter(Boolean).length',
        }),
        look,
        text(JSON.stringify({ decision: 'accept', reasons: ['fixed'] })),
      ]);
    };
    const report = await new EvalRunner(sys.runtime).run([task], {
      suite: 'isolation',
      model: 'scripted',
      attempts: 1,
      pollMs: 100,
    });

    const mirror = sys.runtime.workspace.mirrorDir('acme/kit');
    const baseObjects = lines(git(mirror, 'rev-list', '--objects', '--no-walk', task.base_commit)).map(
      (l) => l.split(' ')[0]!,
    );
    expect(seen).toBeDefined();
    expect([...seen!.objects].sort()).toEqual([...baseObjects].sort());
    expect([...seen!.stored].sort()).toEqual([...baseObjects].sort());
    expect(seen!.hasMergeCommit).toBe(false);
    expect(seen!.refs).toHaveLength(1);
    expect(seen!.refs[0]).toMatch(/^refs\/heads\/agent\//);
    expect(seen!.remotes).toBe('');
    expect(new Set(seen!.reflogShas)).toEqual(new Set([task.base_commit]));
    expect(seen!.wordsTest).not.toContain('countWords gives 0 for an empty text');
    expect(task.test_patch).toContain('countWords gives 0 for an empty text');
    // Graded with the hidden test applied: its red → green test passed, so it was there.
    expect(report.results[0]).toMatchObject({ instance: 'acme__kit-5', solved: true, reason: 'solved' });
    const op = await sys.runtime.store.get(report.results[0]!.attempts[0]!.opId);
    expect(op.status).toBe('evaluated');
    expect(op.eval).toMatchObject({ instance: 'acme__kit-5', attempt: 1 });
  });

  it('hidden tests that do not apply on the base make the attempt an error, said without host paths', async () => {
    sys.runtime.createProvider = () =>
      new ScriptedModel([
        text(JSON.stringify({ summary: 'x', steps: [{ title: 'x', files: ['src/words.js'], acceptance: 'x' }] })),
        tool('edit_file', { path: 'src/words.js', oldText: "split(' ')", newText: 'split(/\\s+/)' }),
        text('done'),
        text(JSON.stringify({ decision: 'accept', reasons: ['ok'] })),
      ]);
    const broken = {
      ...task,
      instance_id: 'acme__kit-broken',
      test_patch: task.test_patch.replace("assert.equal(countWords('one two three'), 3);", 'not the base line'),
    };
    const report = await new EvalRunner(sys.runtime).run([broken], {
      suite: 'broken',
      model: 'scripted',
      attempts: 1,
      pollMs: 100,
    });
    const [result] = report.results;
    expect(result).toMatchObject({ solved: false, reason: 'error' });
    expect(result!.detail).toMatch(
      /^the hidden tests cannot be applied: git apply failed \(1\): error: patch failed: test\/words\.test\.js:\d+$/,
    );
    expect(report.failures.error).toBe(1);
  });

  it('the REST API cannot make an operation an evaluation attempt', async () => {
    const res = await sys.request('POST', '/v1/operations', {
      type: 'fix',
      repo: 'acme/kit',
      description: 'x',
      eval: { run: 'r1', instance: 'acme__kit-5', attempt: 1 },
    });
    expect(res.status).toBe(400);
  });
});

describe('eval: without a sandbox', () => {
  let sys: TestSystem;
  let home: string;

  beforeAll(async () => {
    home = mkdtempSync(path.join(os.tmpdir(), 'pw-eval-nosandbox-'));
    sys = await startTestSystem({ env: { SANDBOX: 'none' } });
    const kit = path.join(home, 'kit');
    buildKitHistory(kit);
    await importRepository(sys.runtime.config.forgeDir, parseImportSource(kit), 'acme/kit');
  });
  afterAll(async () => {
    await sys?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('refuses to run an evaluation, and a worker refuses an attempt, naming the fix', async () => {
    const task = {
      instance_id: 'acme__kit-x',
      repo: 'acme/kit',
      base_commit: git(path.join(home, 'kit'), 'rev-parse', 'HEAD~1'),
      problem_statement: 'p',
      patch: '',
      test_patch: 'diff',
      FAIL_TO_PASS: ['t'],
      PASS_TO_PASS: [],
    };
    await expect(new EvalRunner(sys.runtime).run([task], { suite: 's', model: 'm', attempts: 1 })).rejects.toThrow(
      /needs the sandbox.*SANDBOX=bubblewrap or docker/,
    );

    const op = await sys.runtime.store.create({
      type: 'fix',
      repo: 'acme/kit',
      baseBranch: 'main',
      baseSha: task.base_commit,
      description: 'p',
      requester: { source: 'api', user: 'eval' },
      eval: { run: 'r1', instance: task.instance_id, attempt: 1 },
    });
    await sys.runtime.queue.add('run', { opId: op.id });
    const ended = await waitForStatus(sys, op.id, ['failed', 'evaluated']);
    expect(ended.status).toBe('failed');
    expect(ended.error).toMatch(/^an evaluation attempt needs the sandbox: .*SANDBOX=bubblewrap or docker$/);
  });
});
