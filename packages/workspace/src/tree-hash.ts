import { randomBytes } from 'node:crypto';
import { copyFile, rm, stat, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runGit } from '@pullwright/security';
import { refuseNestedGitData } from './nested-git-data.ts';

/**
 * The git tree of a working copy as it is now: tracked and untracked files that `.gitignore`
 * does not exclude, staged into a throwaway index (a copy of the worktree's own, so unchanged
 * files are not hashed again). Equal hashes mean equal contents: what a cached check result
 * may be keyed by. The worktree's own index is never touched.
 */
export async function worktreeTreeHash(dir: string): Promise<string> {
  await refuseNestedGitData(dir);
  const own = path.resolve(dir, (await runGit(dir, ['rev-parse', '--git-path', 'index'])).toString('utf8').trim());
  const index = path.join(os.tmpdir(), `pw-index-${randomBytes(8).toString('hex')}`);
  try {
    // The copy keeps the index's mtime: git trusts an entry's stat data only for files older
    // than the index file, and a fresh mtime would make it trust a file rewritten at the same
    // size within the same second — and hash the old content (git's "racy clean" problem).
    try {
      await copyFile(own, index);
      const { atime, mtime } = await stat(own);
      await utimes(index, atime, mtime);
    } catch {
      // No index to start from, or its time could not be kept: every file is hashed.
      await rm(index, { force: true });
    }
    const env = { GIT_INDEX_FILE: index };
    await runGit(dir, ['add', '--all', '--', '.'], { env });
    return (await runGit(dir, ['write-tree'], { env })).toString('utf8').trim();
  } finally {
    await rm(index, { force: true });
  }
}
