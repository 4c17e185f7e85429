import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ALL_TOOLS, listRepoFiles } from '@pullwright/agent';
import { RepoChecks } from '@pullwright/pipeline';
import { assessRisk } from '@pullwright/policy';
import { BubblewrapRunner } from '@pullwright/sandbox';
import { PathGuard, runGit } from '@pullwright/security';
import {
  findNestedGitData,
  interdiff,
  NestedGitDataError,
  WorkspaceManager,
  worktreeTreeHash,
} from '@pullwright/workspace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The escape battery of issue 25: a check (real bubblewrap) plants a way to make git run a
 * program — each row one — in the worktree; then every git call the worker makes over that
 * worktree runs on the host, and a marker file outside the sandbox proves that none of the
 * planted programs ran. The sandbox cannot see the marker's directory: only host git can write it.
 */
const MARK = (tag: string, marker: string) => `echo ${tag} >> ${marker}`;

/** A nested repository at $1 with one committed file, then changed (so git has something to clean or diff). */
const MKREPO = `mkrepo() {
  mkdir -p "$1" && git init -q "$1" && echo one > "$1/f.txt" && git -C "$1" add f.txt &&
  git -C "$1" -c user.name=t -c user.email=t@t commit -qm x && echo two > "$1/f.txt"
}`;

/** Every program-running setting a repository's own config can hold, pointed at the marker. */
function hostileConfig(dir: string, marker: string, tag: string): string {
  const cmd = (what: string) => `"sh -c '${MARK(`${tag}:${what}`, marker)}; cat'"`;
  return [
    `git -C ${dir} config filter.x.clean ${cmd('clean')}`,
    `git -C ${dir} config filter.x.smudge ${cmd('smudge')}`,
    `git -C ${dir} config filter.x.required true`,
    `git -C ${dir} config diff.x.textconv ${cmd('textconv')}`,
    `printf '* filter=x diff=x\\n' > ${dir}/.git/info/attributes`,
  ].join('\n');
}

interface Vector {
  name: string;
  /** Shell run as a check in the sandbox, in the worktree. */
  plant(marker: string): string;
}

const VECTORS: Vector[] = [
  {
    name: 'clean/smudge filter in a nested repository',
    plant: (m) => `${MKREPO}\nmkrepo vendor/lib\n${hostileConfig('vendor/lib', m, 'filter')}`,
  },
  {
    name: 'filter.<x>.process in a nested repository',
    plant: (m) =>
      `${MKREPO}\nmkrepo vendor/lib\ngit -C vendor/lib config filter.x.process "sh -c '${MARK('process', m)}; exit 1'"\nprintf '* filter=x\\n' > vendor/lib/.gitattributes`,
  },
  {
    name: 'diff.<x>.textconv in a nested repository',
    plant: (m) =>
      `${MKREPO}\nmkrepo vendor/lib\ngit -C vendor/lib config diff.x.textconv "sh -c '${MARK('textconv', m)}; cat'"\nprintf '* diff=x\\n' > vendor/lib/.git/info/attributes`,
  },
  {
    name: 'diff.external in a nested repository',
    plant: (m) =>
      `${MKREPO}\nmkrepo vendor/lib\ngit -C vendor/lib config diff.external "sh -c '${MARK('external', m)}'"`,
  },
  {
    name: 'core.fsmonitor in a nested repository',
    plant: (m) =>
      `${MKREPO}\nmkrepo vendor/lib\ngit -C vendor/lib config core.fsmonitor "${MARK('fsmonitor', m)}; false"`,
  },
  {
    name: 'core.hooksPath in a nested repository',
    plant: (m) =>
      `${MKREPO}\nmkrepo vendor/lib\nmkdir -p vendor/hooks\nfor h in pre-commit post-commit post-index-change reference-transaction post-checkout pre-push; do printf '#!/bin/sh\\n${MARK('hook', m)}\\n' > vendor/hooks/$h; chmod +x vendor/hooks/$h; done\ngit -C vendor/lib config core.hooksPath ../hooks`,
  },
  {
    name: 'core.sshCommand in a nested repository',
    plant: (m) =>
      `${MKREPO}\nmkrepo vendor/lib\ngit -C vendor/lib config core.sshCommand "sh -c '${MARK('ssh', m)}'"\ngit -C vendor/lib remote add origin ssh://forge.invalid/x.git`,
  },
  {
    name: 'core.pager and core.editor in a nested repository',
    plant: (m) =>
      `${MKREPO}\nmkrepo vendor/lib\ngit -C vendor/lib config core.pager "sh -c '${MARK('pager', m)}; cat'"\ngit -C vendor/lib config pager.status true\ngit -C vendor/lib config core.editor "sh -c '${MARK('editor', m)}'"\n${hostileConfig('vendor/lib', m, 'pager-row')}`,
  },
  {
    name: 'include and includeIf of a planted file',
    plant: (m) =>
      [
        MKREPO,
        'mkrepo vendor/lib',
        `printf '[filter "x"]\\n\\tclean = sh -c "${MARK('include', m)}; cat"\\n\\tprocess = sh -c "${MARK('include-process', m)}; exit 1"\\n' > planted.cfg`,
        'git -C vendor/lib config include.path ../../../planted.cfg',
        'git -C vendor/lib config includeIf.gitdir:**.path ../../../planted.cfg',
        "printf '* filter=x\\n' > vendor/lib/.git/info/attributes",
      ].join('\n'),
  },
  {
    name: 'the base commit’s submodule, populated by the check with a hostile repository (ignore = none)',
    plant: (m) =>
      [
        MKREPO,
        'rmdir sub 2>/dev/null; mkrepo sub',
        hostileConfig('sub', m, 'submodule'),
        `printf '[submodule "sub"]\\n\\tpath = sub\\n\\turl = ./sub\\n\\tignore = none\\n' > .gitmodules`,
      ].join('\n'),
  },
  {
    name: 'a submodule with update = !cmd',
    plant: (m) =>
      [
        MKREPO,
        'rmdir sub 2>/dev/null; mkrepo sub',
        `printf '[submodule "sub"]\\n\\tpath = sub\\n\\turl = ./sub\\n\\tupdate = !sh -c "${MARK('update', m)}"\\n' > .gitmodules`,
      ].join('\n'),
  },
  {
    name: 'nested repositories at several depths, one inside a tracked directory',
    plant: (m) =>
      [
        MKREPO,
        'mkrepo top',
        'mkrepo a/b/c/d',
        'mkrepo src/inner',
        hostileConfig('top', m, 'depth1'),
        hostileConfig('a/b/c/d', m, 'depth4'),
        hostileConfig('src/inner', m, 'tracked-dir'),
      ].join('\n'),
  },
  {
    name: 'a .git file pointing to a planted git directory',
    plant: (m) =>
      [
        MKREPO,
        'mkrepo .planted',
        'mv .planted/.git .planted-gitdir && rm -rf .planted',
        'git --git-dir=.planted-gitdir config core.bare false',
        `git --git-dir=.planted-gitdir config filter.x.clean "sh -c '${MARK('gitfile', m)}; cat'"`,
        `git --git-dir=.planted-gitdir config filter.x.process "sh -c '${MARK('gitfile-process', m)}; exit 1'"`,
        "printf '* filter=x\\n' > .planted-gitdir/info/attributes",
        'mkdir -p vendor/pointer && printf "gitdir: ../../.planted-gitdir\\n" > vendor/pointer/.git',
        // Same size as the committed 'one': git must hash it (through the filter) to tell.
        'echo uno > vendor/pointer/f.txt',
      ].join('\n'),
  },
];

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'pipe' })
    .toString('utf8')
    .trim();

describe('the worktree is hostile once anything has run in it: host git runs nothing a check planted', () => {
  const runner = new BubblewrapRunner();
  let tmp: string;
  let forge: string;
  let workspace: WorkspaceManager;
  let baseSha: string;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'pw-escape-'));
    forge = path.join(tmp, 'forge', 'acme', 'app.git');
    const seed = path.join(tmp, 'seed');
    await mkdir(path.join(seed, 'src'), { recursive: true });
    git(tmp, 'init', '-q', '--bare', '--initial-branch=main', forge);
    git(seed, 'init', '-q', '--initial-branch=main');
    await writeFile(path.join(seed, 'src', 'a.ts'), 'export const a = 1;\n');
    await writeFile(path.join(seed, '.gitignore'), 'node_modules/\n');
    // A legitimate submodule, never populated by the worker: a check may populate it.
    await writeFile(path.join(seed, '.gitmodules'), '[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n');
    git(seed, 'add', '.');
    git(seed, 'update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},sub`);
    git(seed, 'commit', '-qm', 'base');
    git(seed, 'push', '-q', forge, 'main');
    baseSha = git(seed, 'rev-parse', 'HEAD');
    workspace = new WorkspaceManager(path.join(tmp, 'ws'));
    await runner.probe();
  });

  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it.each(VECTORS.map((v, i) => [v.name, v, i] as const))('%s', async (_name, vector, index) => {
    const marker = path.join(tmp, `marker-${index}`);
    const opId = `op${index}`;
    const branch = `agent/${opId}`;
    const ws = await workspace.prepare({
      opId,
      repo: 'acme/app',
      cloneUrl: forge,
      baseBranch: 'main',
      branch,
    });
    // The check: whatever the repository's tests (or a test the model wrote) do.
    const planted = await runner.run({ command: vector.plant(marker), cwd: ws.dir, timeoutMs: 60_000 });
    expect(planted.output).not.toMatch(/not found|fatal|No such file/);
    expect(planted.exitCode).toBe(0);
    expect((await findNestedGitData(ws.dir)).length).toBeGreaterThan(0);

    // Every git call the worker makes over that worktree. Those that read its files refuse
    // while it holds git data (nothing is published, the reason names the path); the rest run.
    const refused = async (p: Promise<unknown>) =>
      expect(
        await p.then(
          () => undefined,
          (err: unknown) => err,
        ),
      ).toBeInstanceOf(NestedGitDataError);
    await refused(workspace.changedFiles(ws.dir, baseSha));
    await refused(workspace.diff(ws.dir, baseSha));
    await refused(workspace.commitAll(ws.dir, 'change', { 'Pullwright-Operation': opId }));
    await refused(worktreeTreeHash(ws.dir));
    // Risk reads the diff: a refused diff is never assessed as "no change".
    await refused(workspace.diff(ws.dir, baseSha).then((d) => assessRisk(d)));
    expect(await listRepoFiles(ws.dir)).toContain('src/a.ts');
    const ctx = {
      root: ws.dir,
      guard: new PathGuard(ws.dir),
      checks: { names: () => [], run: () => Promise.reject() },
    };
    expect((await ALL_TOOLS.find((t) => t.name === 'search')!.execute({ pattern: 'two|const' }, ctx)).isError).toBe(
      false,
    );
    await workspace.push(ws.dir, branch, { expectedRemoteSha: '' });
    const head = await workspace.headSha(ws.dir);
    const mirror = workspace.mirrorDir('acme/app');
    await workspace.syncMirror('acme/app', forge);
    await interdiff(mirror, baseSha, head, 'refs/remotes/origin/main');

    // The hardening holds alone, without the refusal: git itself, as the runner starts it,
    // over the planted tree (status, add, commit, diff, tree hash, a push). Some of these fail
    // on what was planted (a `.gitmodules` git rejects): failing is fine, running it is not.
    const raw: string[][] = [
      ['status', '--porcelain'],
      ['status', '--porcelain=2', '--untracked-files=all'],
      ['add', '--all', '--intent-to-add'],
      ['diff', baseSha],
      ['diff', '--stat', '-p', baseSha],
      ['add', '--all'],
      ['write-tree'],
      ['commit', '-q', '--allow-empty', '-m', 'raw'],
      ['log', '-p', '-2'],
      ['show', 'HEAD'],
      ['ls-files', '-s'],
      ['push', '-q', 'origin', `HEAD:refs/heads/${branch}-raw`],
      ['checkout', '-q', '--force', '--detach'],
      ['reset', '-q', '--hard', 'HEAD'],
    ];
    for (const args of raw) await runGit(ws.dir, args, { protocols: ['file'] }).catch(() => undefined);

    expect(existsSync(marker) ? await readFile(marker, 'utf8') : '').toBe('');
    await workspace.remove(opId, 'acme/app');
  });

  it('a check through RepoChecks: the git data it leaves is removed, the model is told, and the worktree publishes as usual', async () => {
    const marker = path.join(tmp, 'marker-checks');
    const ws = await workspace.prepare({
      opId: 'op-checks',
      repo: 'acme/app',
      cloneUrl: forge,
      baseBranch: 'main',
      branch: 'agent/op-checks',
    });
    const plant = `${MKREPO}\nmkrepo vendor/lib\n${hostileConfig('vendor/lib', marker, 'checks')}\nmkrepo a/b/c`;
    const checks = new RepoChecks(ws.dir, { checks: { test: { command: plant, timeoutMs: 60_000 } } }, runner);
    const run = await checks.run('test');
    expect(run.passed).toBe(true);
    expect(run.output).toContain(
      '[pullwright] path refused (nested git data): a/b/c/.git, vendor/lib/.git. A command left git data inside the worktree',
    );
    expect(run.output).toContain('It was removed.');
    expect(await findNestedGitData(ws.dir)).toEqual([]);
    // Its files stay, as plain files of the change; no gitlink.
    expect(await workspace.changedFiles(ws.dir, baseSha)).toEqual(['a/b/c/f.txt', 'vendor/lib/f.txt']);
    await workspace.commitAll(ws.dir, 'change', {});
    expect(git(ws.dir, 'ls-tree', '-r', 'HEAD')).not.toMatch(/^160000 commit .*\t(vendor|a)\//m);
    expect(existsSync(marker)).toBe(false);
    await workspace.remove('op-checks', 'acme/app');
  });

  it('a worktree that still holds git data is not returned to the pool', async () => {
    const ws = await workspace.prepare({
      opId: 'op-pool',
      repo: 'acme/app',
      cloneUrl: forge,
      baseBranch: 'main',
      branch: 'agent/op-pool',
    });
    await runner.run({ command: `${MKREPO}\nmkrepo src/kept`, cwd: ws.dir, timeoutMs: 60_000 });
    await workspace.remove('op-pool', 'acme/app');
    expect(existsSync(ws.dir)).toBe(false);
    const pool = path.join(tmp, 'ws', 'pool', 'acme', 'app');
    for (const entry of existsSync(pool) ? execFileSync('ls', [pool]).toString().split('\n').filter(Boolean) : [])
      expect(await findNestedGitData(path.join(pool, entry))).toEqual([]);
  });
});
