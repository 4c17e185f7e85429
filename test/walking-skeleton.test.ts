import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

const WRONG_FIX = path.resolve(import.meta.dirname, 'fixtures/wrong-fix.replay.json');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

describe('walking skeleton: request to merged pull request', () => {
  let sys: TestSystem;
  afterEach(async () => sys?.stop());

  it('goes queued → running → awaiting_approval → approved → merging → merged, and the base branch holds the fix', async () => {
    sys = await startTestSystem();
    const forge = sys.runtime.localForge!;
    const repo = await createSampleRepo(forge);

    const created = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    expect(created.status).toBe(202);
    const { id, status } = (await created.json()) as { id: string; status: string };
    expect(status).toBe('queued');

    const ready = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    expect(ready.error).toBeUndefined();
    expect(ready.status).toBe('awaiting_approval');
    expect(ready.branch).toMatch(new RegExp(`^agent/${id}-slugify-keeps-spaces$`));
    expect(ready.filesChanged).toEqual(['src/slugify.js']);
    expect(ready.checks.map((c) => [c.name, c.passed])).toEqual([['test', true]]);
    // The roles left their marks: a plan, an accepting review, and red → green evidence.
    expect(ready.plan).toMatchObject({
      steps: [{ title: 'Reproduce with the existing tests' }, { title: 'Fix slugify at the root' }],
    });
    expect(ready.review).toMatchObject({ decision: 'accept', must_fix: [] });
    expect(ready.evidence).toEqual({
      reproduced: true,
      red: ['ignores surrounding and repeated spaces', 'joins every word with a dash'],
      green: ['ignores surrounding and repeated spaces', 'joins every word with a dash'],
    });
    expect(ready.usage.modelCalls).toBe(8);
    const pr = await forge.getPullRequest(repo, ready.pullRequest!.number);
    expect(pr).toMatchObject({ state: 'open', head: ready.branch, base: 'main', headSha: ready.pullRequest!.headSha });
    expect(pr.body).toContain('src/slugify.js');

    const approve = await sys.request('POST', `/v1/operations/${id}/approve`, { headSha: ready.pullRequest!.headSha });
    expect(approve.status).toBe(200);
    const merged = await waitForStatus(sys, id, ['merged', 'failed']);
    expect(merged.status).toBe('merged');

    const statuses = (await sys.runtime.events.list(id)).filter((e) => e.type === 'status').map((e) => e.data.to);
    expect(statuses).toEqual(['running', 'awaiting_approval', 'approved', 'merging', 'merged']);

    // The merged base branch of the bare repository holds the fix, and its test passes there.
    const clone = mkdtempSync(path.join(os.tmpdir(), 'pw-verify-'));
    try {
      git(clone, 'clone', '-q', '--branch', 'main', forge.repoDir(repo), '.');
      expect(readFileSync(path.join(clone, 'src/slugify.js'), 'utf8')).toContain("split(/\\s+/).join('-')");
      expect(git(clone, 'log', '-1', '--format=%P').trim().split(' ')).toHaveLength(2);
      expect(git(clone, 'log', '--format=%B', '-2')).toContain(`Pullwright-Operation: ${id}`);
      execFileSync('npm', ['test'], { cwd: clone, stdio: 'pipe' });
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });

  it('fails with the test output as the reason when the fix does not pass, and pushes no branch', async () => {
    sys = await startTestSystem({ env: { REPLAY_FILE: WRONG_FIX } });
    const forge = sys.runtime.localForge!;
    const repo = await createSampleRepo(forge);
    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    const { id } = (await res.json()) as { id: string };

    const failed = await waitForStatus(sys, id, ['failed', 'awaiting_approval']);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(
      /^stuck: the same failure \(.*joins every word with a dash.*\) came back after two repairs/,
    );
    expect(failed.error).toContain('check "test" exited with 1:');
    expect(failed.error).toContain('hello-big-world');
    expect(failed.pullRequest).toBeUndefined();
    expect(failed.error).toMatch(/work so far is kept in .*\.diff/);
    const branches = git(forge.repoDir(repo), 'branch', '--list').trim();
    expect(branches).toBe('* main');
  });
});
