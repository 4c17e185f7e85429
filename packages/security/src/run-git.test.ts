import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitCommandError, protocolOf, runGit } from './run-git.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

/** Source files that ship (tests and test helpers excluded). */
async function shippedSources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'testing' && entry.name !== 'dist')
        out.push(...(await shippedSources(p)));
    } else if (/\.(ts|js|mjs)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) out.push(p);
  }
  return out;
}

/** Files allowed to start processes, and why none of them is a way around `runGit`. */
const PROCESS_STARTERS = new Set([
  'packages/security/src/run-git.ts', // the one git entry point
  'packages/sandbox/src/process-runner.ts', // repository commands (sandboxed by its subclasses)
  'packages/sandbox/src/long-running-command.ts', // a sandboxed MCP server over stdio (bubblewrap's start)
  'packages/sandbox/src/bubblewrap-runner.ts', // `bwrap --help`, once
  'packages/sandbox/src/pid-namespace.ts', // `unshare --help`, once
  'packages/sandbox/src/leftover-processes.ts', // `ps` for the leak check
  'packages/queue/src/redis-server.ts', // the embedded redis-server
  'packages/workspace/src/dependency-cache.ts', // `cp --reflink`
]);

describe('runGit is the only way the worker runs git', () => {
  it('no shipped source but run-git.ts starts a process that could be git', async () => {
    const files = [
      ...(await shippedSources(path.join(REPO_ROOT, 'packages'))),
      ...(await shippedSources(path.join(REPO_ROOT, 'apps'))),
    ];
    expect(files.length).toBeGreaterThan(100);
    const starters: string[] = [];
    const namesGit: string[] = [];
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      const rel = path.relative(REPO_ROOT, file);
      if (/from ['"](node:)?child_process['"]|require\(['"](node:)?child_process['"]\)|simple-git/.test(text))
        starters.push(rel);
      if (
        rel !== 'packages/security/src/run-git.ts' &&
        /\b(spawn|spawnSync|execFile|execFileSync|exec|execSync)\(\s*['"`]git\b/.test(text)
      )
        namesGit.push(rel);
    }
    expect(starters.filter((f) => !PROCESS_STARTERS.has(f))).toEqual([]);
    expect(namesGit).toEqual([]);
  });
});

describe('runGit', () => {
  let tmp: string;
  let repo: string;
  let marker: string;
  const savedHome = process.env.HOME;
  const savedXdg = process.env.XDG_CONFIG_HOME;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'pw-run-git-'));
    repo = path.join(tmp, 'repo');
    marker = path.join(tmp, 'marker');
    await mkdir(repo);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, stdio: 'pipe' });
    git('init', '-q', '--initial-branch=main');
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    git('add', 'a.txt');
    git('commit', '-qm', 'init');
    // What a repository ships: attributes naming drivers it hopes the host defines.
    await writeFile(path.join(repo, '.gitattributes'), '* filter=lfs diff=x merge=x\n');
    await writeFile(path.join(repo, 'a.txt'), 'two\n');
    // The worker's own ~/.gitconfig and XDG config define them (`git lfs install` does exactly this).
    const home = path.join(tmp, 'home');
    await mkdir(path.join(home, '.config', 'git'), { recursive: true });
    const hostile = [
      '[filter "lfs"]',
      `\tclean = sh -c 'echo filter >> ${marker}; cat'`,
      `\tprocess = sh -c 'echo process >> ${marker}; exit 1'`,
      '[diff "x"]',
      `\ttextconv = sh -c 'echo textconv >> ${marker}; cat'`,
      '[diff]',
      `\texternal = sh -c 'echo external >> ${marker}'`,
      '[core]',
      `\tpager = sh -c 'echo pager >> ${marker}; cat'`,
      `\tfsmonitor = sh -c 'echo fsmonitor >> ${marker}'`,
    ].join('\n');
    await writeFile(path.join(home, '.gitconfig'), hostile);
    await writeFile(path.join(home, '.config', 'git', 'config'), hostile);
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = path.join(home, '.config');
  });

  afterAll(async () => {
    process.env.HOME = savedHome;
    if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = savedXdg;
    await rm(tmp, { recursive: true, force: true });
  });

  it.each([
    [['status', '--porcelain']],
    [['diff', 'HEAD']],
    [['diff', '--stat', 'HEAD']],
    [['log', '-p', '-1']],
    [['add', '--all']],
    [['commit', '-q', '-m', 'x']],
    [['show', 'HEAD']],
  ])('git %j reads no system or global config: nothing the worker’s home defines runs', async (args) => {
    await runGit(repo, args);
    expect(existsSync(marker)).toBe(false);
  });

  it('reaches no remote unless the call names the transport', async () => {
    const other = path.join(tmp, 'other.git');
    execFileSync('git', ['init', '-q', '--bare', other]);
    await expect(runGit(repo, ['ls-remote', other])).rejects.toThrow(/transport 'file' not allowed/);
    await expect(runGit(repo, ['ls-remote', other], { protocols: ['file'] })).resolves.toBeInstanceOf(Buffer);
    await expect(runGit(repo, ['ls-remote', 'ext::sh -c touch% /tmp/pw-ext'], { protocols: ['file'] })).rejects.toThrow(
      /not allowed/,
    );
  });

  it('keeps the hardening when a caller passes config or environment that would undo it', async () => {
    await runGit(repo, ['diff', 'HEAD'], {
      config: ['core.pager=sh -c "echo pager >> marker"', 'core.hooksPath=hooks'],
      env: { GIT_CONFIG_GLOBAL: path.join(process.env.HOME!, '.gitconfig'), GIT_CONFIG_NOSYSTEM: '0' },
    });
    expect(existsSync(marker)).toBe(false);
  });

  it('names the transport of a forge URL, and refuses one that runs a command', () => {
    expect(protocolOf('https://github.example/acme/app.git')).toBe('https');
    expect(protocolOf('/srv/forge/acme/app.git')).toBe('file');
    expect(protocolOf('file:///srv/forge/acme/app.git')).toBe('file');
    expect(protocolOf('git@github.com:acme/app.git')).toBe('ssh');
    expect(() => protocolOf('ext::sh -c id')).toThrow(GitCommandError);
    expect(() => protocolOf('fd://3')).toThrow(GitCommandError);
  });
});
