import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { GitHubForge } from '@pullwright/forge';
import { commitsToCreate } from '@pullwright/pipeline';
import { runGit } from '@pullwright/security';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from './support/fake-github.ts';

const run = promisify(execFile);

describe("GitHubForge.createCommits through a GHES-style server's git-data API", () => {
  let gh: FakeGitHub;
  let forge: GitHubForge;
  let work: string;
  const git = async (...args: string[]) => (await run('git', args, { cwd: work })).stdout.trim();

  beforeAll(async () => {
    gh = await new FakeGitHub().start();
    await gh.createRepository('acme/data', { files: { 'a.txt': 'one\n', 'keep.txt': 'keep\n' } });
    forge = new GitHubForge({ url: gh.url, appId: gh.appId, privateKey: gh.privateKeyPem });
    work = await mkdtemp(path.join(os.tmpdir(), 'pw-git-data-'));
    await run('git', ['clone', '--quiet', gh.repoDir('acme/data'), work]);
    await git('config', 'user.name', 'Pullwright');
    await git('config', 'user.email', 'bot@pullwright.invalid');
  });
  afterAll(async () => {
    await forge.close();
    await gh.stop();
    await rm(work, { recursive: true, force: true });
  });

  it('recreates a large change (tree batches, modes, a symlink, a deletion) and a second commit as Verified, then refuses a non-fast-forward', async () => {
    const base = await git('rev-parse', 'HEAD');
    await mkdir(path.join(work, 'many'));
    for (let i = 0; i < 210; i++) await writeFile(path.join(work, 'many', `f${i}.txt`), `file ${i}\n`);
    await writeFile(path.join(work, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
    await symlink('keep.txt', path.join(work, 'link'));
    await unlink(path.join(work, 'a.txt'));
    await git('add', '--all');
    await git('commit', '-q', '-m', 'Many files', '-m', 'Pullwright-Operation: op-1');
    await writeFile(path.join(work, 'keep.txt'), 'kept, changed\n');
    await git('commit', '-q', '-am', 'Second');
    const local = await git('rev-parse', 'HEAD');

    const commits = await commitsToCreate(work, local, [base]);
    if ('unsupported' in commits) throw new Error(commits.unsupported);
    expect(commits.map((c) => c.changes.length)).toEqual([213, 1]);
    const treesBefore = gh.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/git/trees')).length;
    const result = await forge.createCommits('acme/data', {
      branch: 'feature',
      expectedRemoteSha: undefined,
      commits,
      readBlob: (sha) => runGit(work, ['cat-file', 'blob', sha]),
    });
    if (!('headSha' in result)) throw new Error(result.unsupported);
    const head = result.headSha;
    expect(head).not.toBe(local);
    expect(await gh.branchSha('acme/data', 'feature')).toBe(head);
    // 213 entries in three requests of at most 100, each on the tree before; then the second commit's one.
    expect(gh.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/git/trees')).length - treesBefore).toBe(4);
    const bare = async (...args: string[]) => (await run('git', args, { cwd: gh.repoDir('acme/data') })).stdout.trim();
    expect(await bare('rev-parse', `${head}^{tree}`)).toBe(await git('rev-parse', 'HEAD^{tree}'));
    expect(await bare('rev-parse', `${head}~1^{tree}`)).toBe(await git('rev-parse', 'HEAD~1^{tree}'));
    expect(await bare('rev-parse', `${head}~2`)).toBe(base);
    // The message byte for byte, trailers included.
    expect(await bare('cat-file', '-p', `${head}~1`)).toMatch(/\n\nMany files\n\nPullwright-Operation: op-1$/);
    expect(await bare('log', '-1', '--format=%an <%ae>|%cn', head)).toBe('Pullwright <bot@pullwright.invalid>|GitHub');
    expect([gh.isVerified(head), gh.isVerified(await bare('rev-parse', `${head}~1`))]).toEqual([true, true]);

    // A commit on the old base, sent as if it followed the branch: GitHub refuses to move it backwards.
    await git('checkout', '-q', '-b', 'other', base);
    await writeFile(path.join(work, 'other.txt'), 'other\n');
    await git('add', '--all');
    await git('commit', '-q', '-m', 'Other');
    const other = await commitsToCreate(work, await git('rev-parse', 'HEAD'), [base]);
    if ('unsupported' in other) throw new Error(other.unsupported);
    await expect(
      forge.createCommits('acme/data', {
        branch: 'feature',
        expectedRemoteSha: head,
        commits: other,
        readBlob: (sha) => runGit(work, ['cat-file', 'blob', sha]),
      }),
    ).rejects.toThrow(/not a fast-forward/);
    expect(await gh.branchSha('acme/data', 'feature')).toBe(head);
  });
});
