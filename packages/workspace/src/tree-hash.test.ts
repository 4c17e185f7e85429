import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { worktreeTreeHash } from './tree-hash.ts';

describe('worktreeTreeHash', () => {
  it('sees a file rewritten at the same size within the second the index was written (racy clean)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-treehash-'));
    try {
      const git = (...args: string[]) =>
        execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' });
      git('init', '-q');
      // Without ctime, stat data is size and mtime (to the second, as git is commonly built).
      git('config', 'core.trustctime', 'false');
      const file = path.join(dir, 'a.js');
      const second = 1_700_000_000;
      writeFileSync(file, 'one\n');
      utimesSync(file, second + 0.1, second + 0.1);
      git('add', '.');
      git('commit', '-qm', 'base');
      const base = git('rev-parse', 'HEAD^{tree}').trim();
      // The index was written at .5 of that second; the file is rewritten at .7, at the same size.
      utimesSync(path.join(dir, '.git/index'), second + 0.5, second + 0.5);
      writeFileSync(file, 'two\n');
      utimesSync(file, second + 0.7, second + 0.7);

      const tree = await worktreeTreeHash(dir);
      expect(tree).not.toBe(base);
      expect(git('cat-file', '-p', `${tree}:a.js`)).toBe('two\n');
      // The worktree's own index is left as it was.
      expect(git('diff', '--cached', '--name-only')).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
