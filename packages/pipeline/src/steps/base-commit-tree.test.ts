import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildRepoMap, guardedFiles, worktreeFiles } from '@pullwright/agent';
import { PathGuard } from '@pullwright/security';
import { WorkspaceManager } from '@pullwright/workspace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseCommitTree } from './base-commit-tree.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });

describe('BaseCommitTree', () => {
  let tmp: string;
  let seed: string;
  let workspace: WorkspaceManager;
  let sha: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'pw-base-tree-'));
    seed = path.join(tmp, 'seed');
    git(tmp, 'init', '-q', '--initial-branch=main', seed);
    await mkdir(path.join(seed, 'src/deep'), { recursive: true });
    await writeFile(path.join(seed, 'src/slugify.js'), 'export function slugify(t) {\n  return t;\n}\n');
    await writeFile(path.join(seed, 'src/deep/tool.ts'), 'export class Tool {}\nexport const VERSION = 1;\n');
    await writeFile(path.join(seed, 'src/big.js'), `export function big() {}\n${'// filler\n'.repeat(30_000)}`);
    await writeFile(path.join(seed, 'package.json'), '{"name":"x"}\n');
    await symlink('slugify.js', path.join(seed, 'src/link.js'));
    // A file the guard never lets the model read: its name is listed, its symbols are not.
    await mkdir(path.join(seed, 'config/secrets'), { recursive: true });
    await writeFile(path.join(seed, 'config/secrets/keys.js'), 'export function signingKeyHolder() {}\n');
    git(seed, 'add', '.');
    git(seed, 'commit', '-qm', 'init');
    sha = git(seed, 'rev-parse', 'HEAD').trim();
    const origin = path.join(tmp, 'origin.git');
    git(tmp, 'clone', '-q', '--bare', seed, origin);
    workspace = new WorkspaceManager(path.join(tmp, 'ws'));
    await workspace.syncMirror('acme/app', origin);
  });
  afterAll(async () => rm(tmp, { recursive: true, force: true }));

  it('lists the commit, reads regular files within the size, never a symlink', async () => {
    const tree = new BaseCommitTree(workspace, 'acme/app', sha);
    expect(await tree.files()).toEqual(
      expect.arrayContaining(['package.json', 'src/slugify.js', 'src/deep/tool.ts', 'src/big.js', 'src/link.js']),
    );
    const texts = await tree.texts(['src/slugify.js', 'src/big.js', 'src/link.js', 'src/missing.js'], 1024);
    expect([...texts.keys()]).toEqual(['src/slugify.js']);
    expect(await tree.readMany(['package.json', 'absent.txt', 'src/slugify.js'])).toEqual([
      '{"name":"x"}\n',
      undefined,
      'export function slugify(t) {\n  return t;\n}\n',
    ]);
  });

  it('gives the repository map a fresh checkout of the same commit gives', async () => {
    const guard = new PathGuard(seed);
    const fromObjects = await buildRepoMap(
      guardedFiles(guard, new BaseCommitTree(workspace, 'acme/app', sha)),
      100_000,
    );
    // The seed is that checkout, with nothing untracked: the same files, the same symbols.
    const fromWorktree = await buildRepoMap(worktreeFiles(guard), 100_000);
    // Read through the guard both ways: a secret file's name is listed, its contents never read.
    expect(fromObjects).toContain('keys.js');
    expect(fromObjects).not.toContain('signingKeyHolder');
    expect(await buildRepoMap(new BaseCommitTree(workspace, 'acme/app', sha), 100_000)).toContain(
      'keys.js: signingKeyHolder',
    );
    expect(fromObjects).toContain('slugify.js: slugify');
    expect(fromObjects).toContain('tool.ts: Tool, VERSION');
    // The worktree reads through a symlink inside it; the commit's objects list it without reading.
    expect(fromWorktree).toContain('link.js: slugify');
    expect(fromObjects).toBe(fromWorktree.replace('link.js: slugify', 'link.js'));
  });
});
