import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { LocalForge } from './local-forge.ts';

const redis = new Redis(inject('redisUrl'));
afterAll(() => redis.disconnect());

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });
}

describe('LocalForge', () => {
  let root: string;
  let forge: LocalForge;
  let work: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'pw-forge-'));
    work = await mkdtemp(path.join(os.tmpdir(), 'pw-forge-work-'));
    forge = new LocalForge({ root, redis, keyPrefix: `t${randomBytes(6).toString('hex')}`, webUrl: 'http://x' });
    await forge.createRepository('acme/app', { 'a.txt': 'one\n', 'b.txt': 'two\n' });
    git(work, 'clone', '-q', forge.repoDir('acme/app'), '.');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  });

  async function pushBranch(branch: string, file: string, content: string, from = 'main'): Promise<string> {
    git(work, 'checkout', '-q', '-B', branch, `origin/${from}`);
    await writeFile(path.join(work, file), content);
    git(work, 'commit', '-qam', `edit ${file}`);
    git(work, 'push', '-q', 'origin', branch);
    return git(work, 'rev-parse', 'HEAD').trim();
  }

  it('refuses repository names that could escape the root', () => {
    for (const bad of ['../x', 'acme/../../etc', 'acme/.git', '/abs/path']) expect(() => forge.repoDir(bad)).toThrow();
  });

  it('opens one PR per head branch and merges it with a real merge commit', async () => {
    const sha = await pushBranch('feature', 'a.txt', 'ONE\n');
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

  it('refuses to merge when the head moved after approval', async () => {
    const approved = await pushBranch('feature', 'a.txt', 'ONE\n');
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

  it('reports a conflict with the files and leaves the base untouched', async () => {
    const sha = await pushBranch('feature', 'a.txt', 'feature\n');
    const pr = await forge.openPullRequest({ repo: 'acme/app', head: 'feature', base: 'main', title: 't', body: 'b' });
    await pushBranch('main', 'a.txt', 'main moved\n');
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
