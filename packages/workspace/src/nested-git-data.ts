import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PullwrightError } from '@pullwright/core';
import { isDotGitName, runGit } from '@pullwright/security';

/** Paths named in a refusal at most: a check can leave thousands. */
const NAMED = 5;

/**
 * The worktree holds git data that is not its own: a nested repository (`vendor/lib/.git`), a
 * `.git` file pointing anywhere, a populated submodule. Host git would enter it — a gitlink's
 * dirt is checked by running `git status` inside, with that repository's config, filters and
 * all — and publish it as a gitlink. Refused like a protected path.
 */
export class NestedGitDataError extends PullwrightError<{ paths: string[] }> {
  constructor(paths: string[]) {
    const named = paths.slice(0, NAMED).join(', ') + (paths.length > NAMED ? ` and ${paths.length - NAMED} more` : '');
    super(
      'path_refused',
      `path refused (nested git data): ${named}. A command left git data inside the worktree; the worker never runs git inside a nested repository or publishes one. Create test repositories outside the worktree (under $TMPDIR).`,
      { paths },
    );
  }
}

/**
 * Every `.git` (any spelling git or a filesystem resolves to it, see isDotGitName) below the
 * worktree's root, where git would look: directories git ignores are skipped (git never enters
 * them, and `node_modules` is large), found with git's own ignore rules. Listing them is safe
 * with a hostile nested repository present: `ls-files` only walks the directory tree and reads
 * no nested config.
 */
export async function findNestedGitData(dir: string): Promise<string[]> {
  const listed = await runGit(dir, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory']);
  const ignored = new Set(
    listed
      .toString('utf8')
      .split('\0')
      .filter((e) => e.endsWith('/'))
      .map((e) => e.slice(0, -1)),
  );
  const found: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (isDotGitName(entry.name)) {
        if (child !== '.git') found.push(child);
      } else if (entry.isDirectory() && !ignored.has(child)) await walk(child);
    }
  };
  await walk('');
  return found.sort();
}

/** Throws NestedGitDataError when the worktree holds git data of its own; what every host git call over a worktree's files starts with. */
export async function refuseNestedGitData(dir: string): Promise<void> {
  const found = await findNestedGitData(dir);
  if (found.length > 0) throw new NestedGitDataError(found);
}

/**
 * Removes the git data a command left in the worktree (its files stay, as plain files) and
 * returns where it was. fs.rm never follows a symlink, and the command's processes are gone.
 */
export async function removeNestedGitData(dir: string): Promise<string[]> {
  const found = await findNestedGitData(dir);
  for (const rel of found) await rm(path.join(dir, rel), { recursive: true, force: true });
  return found;
}
