import { randomBytes } from 'node:crypto';
import { copyFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runGit } from './run-git.ts';

/**
 * The git tree of a working copy as it is now: tracked and untracked files that `.gitignore`
 * does not exclude, staged into a throwaway index (a copy of the worktree's own, so unchanged
 * files are not hashed again). Equal hashes mean equal contents: what a cached check result
 * may be keyed by. The worktree's own index is never touched.
 */
export async function worktreeTreeHash(dir: string): Promise<string> {
  const own = path.resolve(dir, (await runGit(dir, ['rev-parse', '--git-path', 'index'])).toString('utf8').trim());
  const index = path.join(os.tmpdir(), `pw-index-${randomBytes(8).toString('hex')}`);
  try {
    await copyFile(own, index).catch(() => undefined);
    const env = { GIT_INDEX_FILE: index };
    await runGit(dir, ['add', '--all', '--', '.'], { env });
    return (await runGit(dir, ['write-tree'], { env })).toString('utf8').trim();
  } finally {
    await rm(index, { force: true });
  }
}
