import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_DIR } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

const BIN = path.resolve(import.meta.dirname, '../apps/cli/bin/pullwright.js');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });
}

/** Someone's own working copy: the sample project, committed on `trunk`, with a second branch. */
function workingCopy(parent: string, name: string): string {
  const dir = path.join(parent, name);
  cpSync(SAMPLE_DIR, dir, { recursive: true });
  git(dir, 'init', '-q', '--initial-branch=trunk');
  git(dir, 'add', '--all');
  git(dir, 'commit', '-qm', 'my project');
  git(dir, 'branch', 'feature/x');
  git(dir, 'tag', 'v1.0.0');
  return dir;
}

describe('pullwright repo add: your own repository in the local forge', () => {
  let home: string;
  let dataDir: string;
  let sys: TestSystem;
  const cli = (...args: string[]) =>
    spawnSync('node', [BIN, 'repo', ...args], {
      encoding: 'utf8',
      cwd: home,
      env: { PATH: process.env.PATH ?? '', HOME: home, DATA_DIR: dataDir },
      timeout: 30_000,
    });

  beforeAll(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'pw-repo-add-'));
    dataDir = path.join(home, 'data');
  });
  afterAll(async () => {
    await sys?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('imports a path and a file:// URL, lists them, and refuses a taken name or a bad source', () => {
    const mine = workingCopy(home, 'My Project');
    const added = cli('add', 'My Project');
    expect(added.stderr).toBe('');
    expect(added.status).toBe(0);
    expect(added.stdout).toContain('imported local/my-project (2 branches, default trunk)');
    // Every branch and tag (README).
    const forgeRepo = path.join(dataDir, 'forge', 'local', 'my-project.git');
    expect(git(forgeRepo, 'for-each-ref', '--format=%(refname)').split('\n').filter(Boolean).sort()).toEqual([
      'refs/heads/feature/x',
      'refs/heads/trunk',
      'refs/tags/v1.0.0',
    ]);

    const bare = path.join(home, 'remotes', 'acme', 'widget.git');
    execFileSync('git', ['clone', '-q', '--bare', mine, bare]);
    const fromUrl = cli('add', `file://${bare}`);
    expect(fromUrl.status).toBe(0);
    expect(fromUrl.stdout).toContain('imported acme/widget');
    expect(cli('add', `file://${bare}`, '--name', 'team/widget-copy').status).toBe(0);

    const list = cli('list');
    expect(list.stdout).toBe('acme/widget\ttrunk\nlocal/my-project\ttrunk\nteam/widget-copy\ttrunk\n');

    const taken = cli('add', mine, '--name', 'acme/widget');
    expect(taken.status).toBe(1);
    expect(taken.stderr).toContain('acme/widget already exists');
    expect(taken.stderr).not.toContain(home);
    const ext = cli('add', 'ext::sh -c touch% /tmp/pwned');
    expect(ext.status).toBe(1);
    expect(ext.stderr).toContain('source: transport not allowed');
    const badName = cli('add', mine, '--name', '../etc');
    expect(badName.status).toBe(1);
    expect(badName.stderr).toContain('--name: "../etc" is not owner/name');
    expect(badName.stderr).not.toMatch(/\n\s+at /);
    expect(cli('add').status).toBe(2);
  });

  it('a REST /debug on each imported repository reaches a pull request (replay model)', async () => {
    sys = await startTestSystem({ env: { DATA_DIR: dataDir } });
    await sys.startWorker();
    for (const repo of ['local/my-project', 'acme/widget']) {
      const created = await sys.request('POST', '/v1/operations', {
        type: 'debug',
        repo,
        baseBranch: 'trunk',
        description: 'slugify keeps spaces',
      });
      expect(created.status).toBe(202);
      const { id } = (await created.json()) as { id: string };
      const ready = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
      expect(ready.error).toBeUndefined();
      expect(ready.status).toBe('awaiting_approval');
      const pr = await sys.runtime.localForge!.getPullRequest(repo, ready.pullRequest!.number);
      expect(pr).toMatchObject({ state: 'open', base: 'trunk', head: ready.branch });
    }
  });
});
