import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type ScratchGitRepo, scratchGitRepo } from '@pullwright/testing';
import { gitClient } from '@pullwright/workspace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBaseMergeOf } from './merge-train.ts';

let repo: ScratchGitRepo;
let dir: string;
const git = (...args: string[]) => repo.git(...args);
const commit = (files: Record<string, string>, message: string) => repo.commit(files, message);

/** A merge commit of `parents` with the tree of the worktree as it is. */
function mergeCommit(parents: string[], files: Record<string, string>): string {
  for (const [f, c] of Object.entries(files)) writeFileSync(path.join(dir, f), c);
  git('add', '-A');
  const tree = git('write-tree');
  return git('commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', 'merge');
}

let start: string;
let approved: string;
let base: string;
let conflicting: string;

beforeAll(() => {
  repo = scratchGitRepo('pw-train-');
  dir = repo.dir;
  start = commit({ 'a.txt': 'one\n', 'b.txt': 'two\n' }, 'start');
  approved = commit({ 'a.txt': 'ONE\n' }, 'the approved change');
  git('checkout', '-q', '-b', 'base', start);
  base = commit({ 'b.txt': 'TWO\n' }, 'the base moved');
  git('checkout', '-q', start);
  conflicting = commit({ 'a.txt': 'uno\n' }, 'a conflicting base change');
  git('checkout', '-q', approved);
});
afterAll(() => repo.remove());

describe('isBaseMergeOf: what may be merged on an approval of another sha', () => {
  it('accepts the exact merge of the approved sha and the base', async () => {
    const head = mergeCommit([approved, base], { 'a.txt': 'ONE\n', 'b.txt': 'TWO\n' });
    expect(await isBaseMergeOf(gitClient(dir), approved, head, base)).toBe(true);
  });

  it.each([
    [
      'a merge that slips in another change',
      () => mergeCommit([approved, base], { 'a.txt': 'ONE\nevil\n', 'b.txt': 'TWO\n' }),
    ],
    ['a merge that drops a base change', () => mergeCommit([approved, base], { 'a.txt': 'ONE\n', 'b.txt': 'two\n' })],
    ['the parents swapped', () => mergeCommit([base, approved], { 'a.txt': 'ONE\n', 'b.txt': 'TWO\n' })],
    [
      'a plain commit on top of the approved sha',
      () => mergeCommit([approved], { 'a.txt': 'ONE\n', 'b.txt': 'TWO\n' }),
    ],
  ])('refuses %s', async (_name, make) => {
    expect(await isBaseMergeOf(gitClient(dir), approved, make(), base)).toBe(false);
  });

  it('refuses any "merge" of a base that conflicts, even one holding git\'s own conflicted tree', async () => {
    // merge-tree exits 1 on a conflict, with the conflicted tree on its first line.
    let out = '';
    try {
      git('merge-tree', '--write-tree', approved, conflicting);
    } catch (err) {
      out = String((err as { stdout: string }).stdout).split('\n')[0]!;
    }
    expect(out).toMatch(/^[0-9a-f]{40}$/);
    const markers = git('commit-tree', out.trim(), '-p', approved, '-p', conflicting, '-m', 'markers');
    expect(await isBaseMergeOf(gitClient(dir), approved, markers, conflicting)).toBe(false);
  });
});
