import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { WorkspaceManager } from '@pullwright/workspace';
import { appendHistory } from './support/history.ts';

const run = promisify(execFile);
const git = (cwd: string, ...args: string[]) => run('git', args, { cwd, maxBuffer: 64 * 1024 * 1024 });

const NODE_MODULES = path.resolve(import.meta.dirname, '../node_modules');
/** Real source trees, for a repository of a realistic shape: a few large files and thousands of small ones. */
const SOURCES = ['typescript/lib', 'zod', 'bullmq', 'pino', 'ioredis', 'express', 'prom-client', 'yaml'];
const WANT_FILES = 3000;
/** History on top (full runs): 300 commits, each rewriting one of 20 files with 32 KB of fresh content. */
const HISTORY = { commits: 300, files: 20, bytes: 32 * 1024, dir: 'history' };

async function countFiles(dir: string): Promise<number> {
  let n = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) n++;
  return n;
}

/** A bare repository with one commit of ~WANT_FILES files; returns its path and file count. */
async function buildRepo(root: string, smoke: boolean): Promise<{ bare: string; files: number; commits: number }> {
  const work = path.join(root, 'seed');
  await mkdir(work, { recursive: true });
  let files = 0;
  for (const source of smoke ? ['pino'] : SOURCES) {
    if (files >= WANT_FILES) break;
    const from = path.join(NODE_MODULES, source);
    await cp(from, path.join(work, source), { recursive: true }).catch(() => undefined);
    files = await countFiles(work);
  }
  await git(work, 'init', '-q', '--initial-branch=main');
  await git(work, 'add', '--all');
  await git(work, '-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-q', '-m', 'seed');
  const commits = smoke ? 0 : HISTORY.commits;
  if (commits > 0) await appendHistory(work, HISTORY);
  const bare = path.join(root, 'bench', 'repo.git');
  await git(root, 'clone', '-q', '--bare', work, bare);
  await rm(work, { recursive: true, force: true });
  return { bare, files, commits: commits + 1 };
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Workspace preparation for an operation (`WorkspaceManager.prepare`: fetch into the cached
 * mirror, worktree, new branch) against what it replaces: a full `git clone` of the same
 * repository over `file://` (the transport a remote clone uses; a plain local path would
 * hardlink objects and flatter the clone), and a raw `git worktree add -b` on the same mirror.
 */
export default async function workspaceBench(opts: { smoke: boolean }) {
  const rounds = opts.smoke ? 1 : 7;
  const root = await mkdtemp(path.join(os.tmpdir(), 'pw-bench-ws-'));
  try {
    const { bare, files, commits } = await buildRepo(root, opts.smoke);
    const url = `file://${bare}`;
    const workspace = new WorkspaceManager(path.join(root, 'ws'));
    // The mirror is cloned once per repository and worker; operations then only fetch.
    const cold = await time(() =>
      workspace.prepare({ opId: 'cold', repo: 'bench/repo', cloneUrl: url, baseBranch: 'main', branch: 'agent/cold' }),
    );
    await workspace.remove('cold', 'bench/repo');
    const mirror = workspace.mirrorDir('bench/repo');

    const ours: number[] = [];
    const clone: number[] = [];
    const worktree: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const opId = `op${i}`;
      ours.push(
        await time(() =>
          workspace.prepare({ opId, repo: 'bench/repo', cloneUrl: url, baseBranch: 'main', branch: `agent/${opId}` }),
        ),
      );
      await workspace.remove(opId, 'bench/repo');

      const cloneDir = path.join(root, `clone${i}`);
      clone.push(await time(() => git(root, 'clone', '-q', url, cloneDir)));
      await rm(cloneDir, { recursive: true, force: true });

      const rawDir = path.join(root, `raw${i}`);
      worktree.push(
        await time(() => git(mirror, 'worktree', 'add', '-q', '-b', `raw/${i}`, rawDir, 'refs/remotes/origin/main')),
      );
      await git(mirror, 'worktree', 'remove', '--force', rawDir);
    }
    const oursMs = median(ours);
    const r = (n: number) => Number(n.toFixed(2));
    const against = (name: string, baseline: number[], target: string) => ({
      name,
      value: r(oursMs),
      unit: 'ms',
      baseline: r(median(baseline)),
      ratio: r(oursMs / median(baseline)),
      target,
    });
    return [
      { name: 'repository size', value: files, unit: 'files' },
      { name: 'repository history', value: commits, unit: 'commits' },
      against('prepare (fetch + worktree + branch) vs full git clone', clone, '<= 0.15x'),
      against('prepare vs raw git worktree add', worktree, '<= 1.5x'),
      { name: 'first prepare of a repository (mirror clone + worktree)', value: r(cold), unit: 'ms' },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
