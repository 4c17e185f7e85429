import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TaskMiner } from '@pullwright/eval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKitHistory } from './support/eval-fixture.ts';
import { type GitHubTestSystem, startGitHubTestSystem } from './support/fake-github/github-test-system.ts';
import { FakeGitHub } from './support/fake-github.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=dev', '-c', 'user.email=dev@kit.example', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();

/** Issue 33 on the GitHub forge: tasks come from merged pull requests, the problem from the issue a PR closes. */
describe('eval mine on GitHub: merged pull requests', () => {
  let gh: FakeGitHub;
  let sys: GitHubTestSystem;
  let home: string;
  let fixPr: number;
  let docsPr: number;
  let mergeSha: string;

  beforeAll(async () => {
    home = mkdtempSync(path.join(os.tmpdir(), 'pw-eval-gh-'));
    const kit = path.join(home, 'kit');
    buildKitHistory(kit);
    const root = git(kit, 'rev-list', '--max-parents=0', 'HEAD');
    const clampFix = git(kit, 'log', '--format=%H', '--grep=^Merge pull request #1 ', 'HEAD');
    const seed = path.join(home, 'seed');
    mkdirSync(seed);
    execFileSync('sh', ['-c', `git -C "${kit}" archive ${root} | tar -x -C "${seed}"`]);
    gh = await new FakeGitHub().start();
    await gh.createRepository('acme/kit', { fromDir: seed });
    // GitHub tells the app of every merge and close: its webhooks need the API listening.
    sys = await startGitHubTestSystem(gh);
    const work = path.join(home, 'work');
    git(home, 'clone', '-q', gh.repoDir('acme/kit'), work);
    /** A branch with `files` as the kit history has them at `rev`, pushed to the fake. */
    const branch = (name: string, files: Record<string, string>) => {
      git(work, 'checkout', '-q', '-B', name, 'origin/main');
      for (const [file, text] of Object.entries(files)) writeFileSync(path.join(work, file), text);
      git(work, 'commit', '-qam', name);
      git(work, 'push', '-q', 'origin', name);
    };
    const issue = await gh.openIssue('acme/kit', {
      user: 'reporter',
      title: 'clamp(-5, 0, 10) is -5',
      body: 'A value below the range should come back as the lower bound.\n<!-- triage: easy -->',
    });
    branch('clamp-lower-bound', {
      'src/clamp.js': git(kit, 'show', `${clampFix}:src/clamp.js`),
      'test/clamp.test.js': git(kit, 'show', `${clampFix}:test/clamp.test.js`),
    });
    fixPr = gh.openPull('acme/kit', {
      user: 'dev',
      head: 'clamp-lower-bound',
      base: 'main',
      title: 'Raise values below the range',
      body: `Fixes #${issue}.`,
    });
    await gh.closePull('acme/kit', fixPr, 'acme', { merge: true });
    mergeSha = gh.pulls('acme/kit').find((p) => p.number === fixPr)!.mergeCommitSha!;
    git(work, 'fetch', '-q', 'origin');
    branch('readme', { 'README.md': '# kit\n\nSmall, tested helpers.\n' });
    docsPr = gh.openPull('acme/kit', { user: 'dev', head: 'readme', base: 'main', title: 'README', body: '' });
    await gh.closePull('acme/kit', docsPr, 'acme', { merge: true });
    // Closed without merging: not a candidate at all.
    git(work, 'fetch', '-q', 'origin');
    branch('abandoned', { 'src/clamp.js': 'export const clamp = () => 0;\n' });
    const abandoned = gh.openPull('acme/kit', { user: 'dev', head: 'abandoned', base: 'main', title: 'x', body: '' });
    await gh.closePull('acme/kit', abandoned, 'acme');
  });
  afterAll(async () => {
    await sys?.stop();
    await gh?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('keeps the merged PR whose tests went red → green; its problem is the issue it closes, sanitized', async () => {
    const result = await new TaskMiner(sys.runtime).mine('acme/kit');
    expect(result.branch).toBe('main');
    expect(result.skipped).toEqual([{ id: String(docsPr), reason: 'the change touches no test' }]);
    expect(result.tasks).toHaveLength(1);
    const [task] = result.tasks;
    expect(task).toMatchObject({
      instance_id: `acme__kit-${fixPr}`,
      repo: 'acme/kit',
      base_commit: git(gh.repoDir('acme/kit'), 'rev-parse', `${mergeSha}^1`),
      problem_statement: 'clamp(-5, 0, 10) is -5\n\nA value below the range should come back as the lower bound.',
      FAIL_TO_PASS: ['clamp raises a value below the range'],
    });
    expect(task!.test_patch).toContain('+++ b/test/clamp.test.js');
    expect(task!.patch).toContain('+++ b/src/clamp.js');
    // Listed through the installation's REST API, by last update; the issue read once.
    expect(gh.calls.filter((c) => c.method === 'GET' && c.path === '/repos/acme/kit/pulls')).toHaveLength(1);
    expect(gh.calls.filter((c) => c.path.endsWith(`/issues/${fixPr - 1}`))).toHaveLength(1);
  });
});
