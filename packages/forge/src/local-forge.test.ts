import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { redisTest } from '@pullwright/testing';
import { describe, expect } from 'vitest';
import { LocalForge } from './local-forge.ts';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });
}

async function tempDir(use: (dir: string) => Promise<void>, name: string): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), name));
  try {
    await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const test = redisTest.extend<{ forge: LocalForge; work: string }>({
  /** A forge with `acme/app` holding a.txt and b.txt on main. */
  forge: async ({ redis, prefix }, use) =>
    tempDir(async (root) => {
      const forge = new LocalForge({ root, redis, keyPrefix: prefix, webUrl: 'http://x' });
      await forge.createRepository('acme/app', { 'a.txt': 'one\n', 'b.txt': 'two\n' });
      await use(forge);
    }, 'pw-forge-'),
  /** A clone of `acme/app` to push from. */
  work: async ({ forge }, use) =>
    tempDir(async (work) => {
      git(work, 'clone', '-q', forge.repoDir('acme/app'), '.');
      await use(work);
    }, 'pw-forge-work-'),
});

async function pushBranch(work: string, branch: string, file: string, content: string, from = 'main'): Promise<string> {
  git(work, 'checkout', '-q', '-B', branch, `origin/${from}`);
  await writeFile(path.join(work, file), content);
  git(work, 'commit', '-qam', `edit ${file}`);
  git(work, 'push', '-q', 'origin', branch);
  return git(work, 'rev-parse', 'HEAD').trim();
}

describe('LocalForge', () => {
  test('refuses repository names that could escape the root', ({ forge }) => {
    for (const bad of ['../x', 'acme/../../etc', 'acme/.git', '/abs/path']) expect(() => forge.repoDir(bad)).toThrow();
  });

  test('opens one PR per head branch and merges it with a real merge commit', async ({ forge, work }) => {
    const sha = await pushBranch(work, 'feature', 'a.txt', 'ONE\n');
    const pr = await forge.openPullRequest({ repo: 'acme/app', head: 'feature', base: 'main', title: 't', body: 'b' });
    const again = await forge.openPullRequest({
      repo: 'acme/app',
      head: 'feature',
      base: 'main',
      title: 't2',
      body: 'b2',
    });
    expect(again.number).toBe(pr.number);
    expect(pr.headSha).toBe(sha);
    expect(await forge.pullRequestDiff('acme/app', pr.number)).toContain('+ONE');

    const { mergeSha } = await forge.mergePullRequest('acme/app', pr.number, {
      expectedHeadSha: sha,
      message: 'Merge feature',
    });
    expect(await forge.branchSha('acme/app', 'main')).toBe(mergeSha);
    expect(git(forge.repoDir('acme/app'), 'show', 'main:a.txt')).toBe('ONE\n');
    expect(git(forge.repoDir('acme/app'), 'log', '-1', '--format=%P', 'main').trim().split(' ')[1]).toBe(sha);
    expect((await forge.getPullRequest('acme/app', pr.number)).state).toBe('merged');
    expect(await forge.findOpenPullRequest('acme/app', 'feature')).toBeUndefined();
  });

  test('refuses to merge when the head moved after approval', async ({ forge, work }) => {
    const approved = await pushBranch(work, 'feature', 'a.txt', 'ONE\n');
    const pr = await forge.openPullRequest({ repo: 'acme/app', head: 'feature', base: 'main', title: 't', body: 'b' });
    await writeFile(path.join(work, 'b.txt'), 'sneaky\n');
    git(work, 'commit', '-qam', 'later push');
    git(work, 'push', '-q', 'origin', 'feature');
    await expect(
      forge.mergePullRequest('acme/app', pr.number, { expectedHeadSha: approved, message: 'm' }),
    ).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/head moved/),
    });
    expect(git(forge.repoDir('acme/app'), 'show', 'main:b.txt')).toBe('two\n');
  });

  test('reports a conflict with the files and leaves the base untouched', async ({ forge, work }) => {
    const sha = await pushBranch(work, 'feature', 'a.txt', 'feature\n');
    const pr = await forge.openPullRequest({ repo: 'acme/app', head: 'feature', base: 'main', title: 't', body: 'b' });
    await pushBranch(work, 'main', 'a.txt', 'main moved\n');
    const before = await forge.branchSha('acme/app', 'main');
    await expect(
      forge.mergePullRequest('acme/app', pr.number, { expectedHeadSha: sha, message: 'm' }),
    ).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('a.txt'),
    });
    expect(await forge.branchSha('acme/app', 'main')).toBe(before);
    expect((await forge.getPullRequest('acme/app', pr.number)).state).toBe('open');
  });
});
