import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A throwaway git repository for a test: run git in it, commit files, remove it. */
export interface ScratchGitRepo {
  dir: string;
  git(...args: string[]): string;
  /** Writes `files` (paths relative to the repository), commits them all; returns the new sha. */
  commit(files: Record<string, string>, message: string): string;
  remove(): void;
}

export function scratchGitRepo(prefix: string): ScratchGitRepo {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      cwd: dir,
      encoding: 'utf8',
    }).trim();
  git('init', '-q', '-b', 'main');
  return {
    dir,
    git,
    commit(files, message) {
      for (const [f, c] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
        writeFileSync(path.join(dir, f), c);
      }
      git('add', '-A');
      git('commit', '-q', '-m', message);
      return git('rev-parse', 'HEAD');
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
