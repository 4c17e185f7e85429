import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ForcePushRefusedError, GitClient, gitClient } from './git-client.ts';
import { WorkspaceManager } from './workspace-manager.ts';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });
}

describe('WorkspaceManager', () => {
  let tmp: string;
  let origin: string;
  let ws: WorkspaceManager;
  beforeEach(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'pw-ws-'));
    origin = path.join(tmp, 'origin.git');
    const seed = path.join(tmp, 'seed');
    git(tmp, 'init', '-q', '--bare', '--initial-branch=main', origin);
    git(tmp, 'init', '-q', '--initial-branch=main', seed);
    await writeFile(path.join(seed, 'app.js'), 'console.log(1)\n');
    git(seed, 'add', '.');
    git(seed, 'commit', '-qm', 'init');
    git(seed, 'push', '-q', origin, 'main');
    git(seed, 'push', '-q', origin, 'main:other');
    ws = new WorkspaceManager(path.join(tmp, 'ws'));
  });
  afterEach(async () => rm(tmp, { recursive: true, force: true }));

  const req = (opId: string) => ({
    opId,
    repo: 'acme/app',
    cloneUrl: origin,
    baseBranch: 'main',
    branch: `agent/${opId}-x`,
  });

  it('prepares a worktree on a new branch from the base, commits with trailers and pushes without touching other branches', async () => {
    const prepared = await ws.prepare(req('op1'));
    expect(prepared.resumed).toBe(false);
    expect(prepared.baseSha).toBe(git(origin, 'rev-parse', 'main').trim());
    expect(git(prepared.dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('agent/op1-x');
    await writeFile(path.join(prepared.dir, 'app.js'), 'console.log(2)\n');
    await writeFile(path.join(prepared.dir, 'new.js'), 'x\n');
    await writeFile(path.join(prepared.dir, 'spécial "q".js'), 'x\n');
    // git would C-quote the last name (`"sp\303\251cial \"q\".js"`) in a plain listing.
    expect(await ws.changedFiles(prepared.dir, prepared.baseSha)).toEqual(['app.js', 'new.js', 'spécial "q".js']);
    const sha = await ws.commitAll(prepared.dir, 'fix: thing', { 'Pullwright-Operation': 'op1' });
    expect(git(prepared.dir, 'log', '-1', '--format=%B')).toContain('Pullwright-Operation: op1');
    await ws.push(prepared.dir, prepared.branch);
    expect(git(origin, 'rev-parse', 'agent/op1-x').trim()).toBe(sha);
    // A mirror-style push would have deleted or rewritten these.
    expect(
      git(origin, 'for-each-ref', '--format=%(refname:short)', 'refs/heads').split('\n').filter(Boolean).sort(),
    ).toEqual(['agent/op1-x', 'main', 'other']);
    expect(await ws.commitAll(prepared.dir, 'again', {})).toBeUndefined();
  });

  it('resumes the same worktree for a retried operation, and rebuilds it from the pushed branch after cleanup', async () => {
    const first = await ws.prepare(req('op2'));
    await writeFile(path.join(first.dir, 'app.js'), 'work in progress\n');
    const again = await ws.prepare(req('op2'));
    expect(again).toMatchObject({ dir: first.dir, resumed: true });
    expect(await readFile(path.join(again.dir, 'app.js'), 'utf8')).toBe('work in progress\n');

    await ws.commitAll(first.dir, 'wip', {});
    await ws.push(first.dir, first.branch);
    await ws.remove('op2', 'acme/app');
    expect(existsSync(first.dir)).toBe(false);
    const rebuilt = await ws.prepare(req('op2'));
    expect(rebuilt.resumed).toBe(true);
    expect(await readFile(path.join(rebuilt.dir, 'app.js'), 'utf8')).toBe('work in progress\n');
  });

  it('a stale push naming an old remote sha is refused', async () => {
    const a = await ws.prepare(req('op3'));
    await writeFile(path.join(a.dir, 'app.js'), 'a\n');
    await ws.commitAll(a.dir, 'a', {});
    await ws.push(a.dir, a.branch, { expectedRemoteSha: '' });
    const remote = git(origin, 'rev-parse', a.branch).trim();
    await writeFile(path.join(a.dir, 'app.js'), 'b\n');
    await ws.commitAll(a.dir, 'b', {});
    await expect(ws.push(a.dir, a.branch, { expectedRemoteSha: '0'.repeat(40) })).rejects.toMatchObject({
      code: 'git_failed',
    });
    await ws.push(a.dir, a.branch, { expectedRemoteSha: remote });
  });

  it('the git wrapper refuses every forced push before git runs; a rewritten branch is not pushed', async () => {
    const a = await ws.prepare(req('op7'));
    await writeFile(path.join(a.dir, 'app.js'), 'a\n');
    await ws.commitAll(a.dir, 'a', {});
    await ws.push(a.dir, a.branch, { expectedRemoteSha: '' });
    const pushed = git(origin, 'rev-parse', a.branch).trim();
    // History rewritten locally: only a forced push could put it on the forge.
    git(a.dir, 'commit', '-q', '--amend', '-m', 'rewritten');
    const wt = gitClient(a.dir);
    for (const args of [
      ['push', '--force', 'origin', `HEAD:refs/heads/${a.branch}`],
      ['push', '-f', 'origin', `HEAD:refs/heads/${a.branch}`],
      ['push', `--force-with-lease=refs/heads/${a.branch}:${pushed}`, 'origin', `HEAD:refs/heads/${a.branch}`],
      ['push', 'origin', `+HEAD:refs/heads/${a.branch}`],
      ['push', '--mirror', 'origin'],
      ['push', '--delete', 'origin', a.branch],
    ]) {
      await expect(wt.raw(args)).rejects.toBeInstanceOf(ForcePushRefusedError);
    }
    // `raw` is the client's only way to run git: there is no other door to push through.
    expect(Object.getOwnPropertyNames(GitClient.prototype).sort()).toEqual(['constructor', 'raw']);
    // Our own push is a plain one: the forge refuses the non-fast-forward, and keeps its commit.
    await expect(ws.push(a.dir, a.branch, { expectedRemoteSha: pushed })).rejects.toMatchObject({ code: 'git_failed' });
    expect(git(origin, 'rev-parse', a.branch).trim()).toBe(pushed);
    expect(git(origin, 'branch', '--list').trim().split(/\s+/)).toContain('other');
  });

  it('reads several files of a commit in one call: texts in order, undefined for a missing file or a directory', async () => {
    const seed = path.join(tmp, 'seed');
    await writeFile(path.join(seed, 'spécial name.txt'), 'é\n');
    await writeFile(path.join(seed, 'empty'), '');
    git(seed, 'add', '.');
    git(seed, 'commit', '-qm', 'more');
    git(seed, 'push', '-q', origin, 'main');
    await ws.syncMirror('acme/app', origin);
    const sha = git(origin, 'rev-parse', 'main').trim();
    expect(
      await ws.readManyAt('acme/app', sha, ['app.js', 'nope.txt', 'spécial name.txt', 'empty', 'missing/dir', '.']),
    ).toEqual(['console.log(1)\n', undefined, 'é\n', '', undefined, undefined]);
    expect(await ws.readManyAt('acme/app', 'f'.repeat(40), ['app.js'])).toEqual([undefined]);
  });

  it("a revision gets a worktree on its branch while the run's worktree still holds it, pooled or not", async () => {
    const run = await ws.prepare(req('op9'));
    await ws.prepare(req('op10'));
    await ws.remove('op10', 'acme/app'); // one in the pool
    const pooled = await ws.prepare({ ...req('op9'), opId: 'op9-revision' });
    const fresh = await ws.prepare({ ...req('op9'), opId: 'op9-revision-2' });
    for (const dir of [run.dir, pooled.dir, fresh.dir])
      expect(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('agent/op9-x');
    expect(new Set([run.dir, pooled.dir, fresh.dir]).size).toBe(3);
  });

  it('a base-only repository holds the base commit alone: no later commit, tag, ref, reflog or object of the mirror', async () => {
    const seed = path.join(tmp, 'seed');
    const base = git(seed, 'rev-parse', 'HEAD').trim();
    await writeFile(path.join(seed, 'fix.js'), 'the fix that followed\n');
    git(seed, 'add', '.');
    git(seed, 'commit', '-qm', 'the fix');
    git(seed, 'tag', 'v2');
    git(seed, 'push', '-q', '--tags', origin, 'main');
    const later = git(seed, 'rev-parse', 'HEAD').trim();
    await ws.syncMirror('acme/app', origin);

    const prepared = await ws.prepare({ ...req('op7'), fetch: false, baseSha: base, baseOnly: true });
    const reachable = git(prepared.dir, 'rev-list', '--all', '--objects').trim().split('\n');
    const stored = git(prepared.dir, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)')
      .trim()
      .split('\n');
    const baseObjects = git(ws.mirrorDir('acme/app'), 'rev-list', '--objects', '--no-walk', base)
      .trim()
      .split('\n')
      .map((l) => l.split(' ')[0]!);
    expect(reachable.map((l) => l.split(' ')[0]).sort()).toEqual([...baseObjects].sort());
    expect(stored.sort()).toEqual([...baseObjects].sort());
    expect(stored).not.toContain(later);
    expect(git(prepared.dir, 'for-each-ref', '--format=%(refname)').trim()).toBe('refs/heads/agent/op7-x');
    expect(git(prepared.dir, 'remote').trim()).toBe('');
    expect(existsSync(path.join(prepared.dir, 'fix.js'))).toBe(false);
    expect(await readFile(path.join(prepared.dir, 'app.js'), 'utf8')).toBe('console.log(1)\n');

    // The worker's git works there as in any worktree: the diff against the base, a commit on it.
    await writeFile(path.join(prepared.dir, 'app.js'), 'console.log(2)\n');
    expect(await ws.changedFiles(prepared.dir, base)).toEqual(['app.js']);
    expect(await ws.commitAll(prepared.dir, 'attempt', {})).toMatch(/^[0-9a-f]{40}$/);
    await ws.remove('op7', 'acme/app');
    expect(existsSync(prepared.dir)).toBe(false);
  });

  it('tells ancestors from diverged or unknown commits', async () => {
    const a = await ws.prepare(req('op6'));
    const base = git(a.dir, 'rev-parse', 'HEAD').trim();
    await writeFile(path.join(a.dir, 'app.js'), 'x\n');
    const mine = await ws.commitAll(a.dir, 'mine', {});
    git(a.dir, 'checkout', '-q', '--detach', base);
    await writeFile(path.join(a.dir, 'app.js'), 'y\n');
    git(a.dir, 'commit', '-qam', 'theirs');
    const theirs = git(a.dir, 'rev-parse', 'HEAD').trim();
    expect(await ws.isAncestor(a.dir, base, mine!)).toBe(true);
    expect(await ws.isAncestor(a.dir, theirs, mine!)).toBe(false);
    expect(await ws.isAncestor(a.dir, mine!, theirs)).toBe(false);
    expect(await ws.isAncestor(a.dir, 'f'.repeat(40), mine!)).toBe(false);
  });

  it('fails clearly when the base branch does not exist', async () => {
    await expect(ws.prepare({ ...req('op4'), baseBranch: 'nope' })).rejects.toMatchObject({
      code: 'git_failed',
      message: expect.stringContaining('base branch nope'),
    });
  });

  it('git in the worktree ignores the repo’s hooks', async () => {
    const prepared = await ws.prepare(req('op5'));
    const hook = path.join(tmp, 'ws/mirrors/acme/app.git/hooks/pre-commit');
    await writeFile(hook, `#!/bin/sh\ntouch ${path.join(tmp, 'HOOK_RAN')}\nexit 1\n`, { mode: 0o755 });
    await writeFile(path.join(prepared.dir, 'app.js'), 'z\n');
    expect(await ws.commitAll(prepared.dir, 'z', {})).toMatch(/^[0-9a-f]{40}$/);
    expect(existsSync(path.join(tmp, 'HOOK_RAN'))).toBe(false);
  });

  it('a finished worktree goes back to the pool and the next operation gets it clean, on its own branch from the new base', async () => {
    const first = await ws.prepare(req('op1'));
    await writeFile(path.join(first.dir, 'app.js'), 'console.log("edited")\n');
    await writeFile(path.join(first.dir, 'left-behind.js'), 'x\n');
    await writeFile(path.join(first.dir, '.gitignore'), 'node_modules/\n');
    execFileSync('mkdir', ['-p', path.join(first.dir, 'node_modules', 'evil')]);
    await writeFile(path.join(first.dir, 'node_modules', 'evil', 'index.js'), 'x\n');
    await ws.remove('op1', 'acme/app');
    expect(existsSync(first.dir)).toBe(false);

    // The base moved meanwhile.
    const seed = path.join(tmp, 'seed');
    await writeFile(path.join(seed, 'base.js'), 'moved\n');
    git(seed, 'add', '.');
    git(seed, 'commit', '-qm', 'base moved');
    git(seed, 'push', '-q', origin, 'main');

    const second = await ws.prepare(req('op2'));
    expect(second.resumed).toBe(false);
    expect(git(second.dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('agent/op2-x');
    expect(git(second.dir, 'rev-parse', 'HEAD').trim()).toBe(git(origin, 'rev-parse', 'main').trim());
    // Nothing of the first operation is left: no edit, no untracked file, no ignored file.
    expect(git(second.dir, 'status', '--porcelain', '--ignored')).toBe('');
    expect(await readFile(path.join(second.dir, 'app.js'), 'utf8')).toBe('console.log(1)\n');
    expect(existsSync(path.join(second.dir, 'left-behind.js'))).toBe(false);
    expect(existsSync(path.join(second.dir, 'node_modules'))).toBe(false);
    expect(existsSync(path.join(second.dir, 'base.js'))).toBe(true);
    // It is the pooled worktree (moved, not a new checkout): git knows it under the new path.
    expect(git(ws.mirrorDir('acme/app'), 'worktree', 'list')).toContain(second.dir);
  });

  it('a config.lock left by a killed worker does not stop the next operation on the mirror', async () => {
    await ws.prepare(req('op1'));
    await writeFile(path.join(ws.mirrorDir('acme/app'), 'config.lock'), '');
    const next = await ws.prepare(req('op2'));
    expect(git(next.dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('agent/op2-x');
  });
});
