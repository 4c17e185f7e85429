import { PullwrightError } from '@pullwright/core';
import { type GitClient, gitClient } from './git-client.ts';

interface Interdiff {
  from: string;
  to: string;
  /** The base commit merged into `from` before comparing: what `to` holds of the base branch. */
  base: string | undefined;
  /**
   * False when `from` and that base conflict: the diff is then plain `from..to` and may
   * include base changes (the page says so).
   */
  baseFactoredOut: boolean;
  diff: string;
}

async function commitOf(git: GitClient, rev: string, name: string): Promise<string> {
  const sha = (await git.raw(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]).catch(() => '')).trim();
  if (!sha)
    throw new PullwrightError('not_found', `${name} ${rev} is not a commit of this repository`, { [name]: rev });
  return sha;
}

/**
 * What changed between two heads of a branch, without what the base branch brought in:
 * the base that `to` contains (its merge base with `baseRef`) is merged into `from` in
 * memory (`git merge-tree`, no worktree), and that tree is compared with `to`. A base merged
 * by the merge train is then not shown as the agent's change.
 */
export async function interdiff(gitDir: string, from: string, to: string, baseRef: string): Promise<Interdiff> {
  const git = gitClient(gitDir);
  const fromSha = await commitOf(git, from, 'from');
  const toSha = await commitOf(git, to, 'to');
  const base = (await git.raw(['merge-base', toSha, baseRef]).catch(() => '')).trim() || undefined;
  let left = fromSha;
  let baseFactoredOut = base !== undefined;
  if (base) {
    // Exit status 1 (a conflict): then compare the heads as they are.
    const tree = await git.raw(['merge-tree', '--write-tree', fromSha, base]).then(
      (out) => out.split('\n')[0]!.trim(),
      () => undefined,
    );
    if (tree) left = tree;
    else baseFactoredOut = false;
  }
  const diff = await git.raw(['diff', '--no-color', '--no-ext-diff', left, toSha]);
  return { from: fromSha, to: toSha, base, baseFactoredOut, diff };
}
