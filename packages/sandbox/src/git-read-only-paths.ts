import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * What a check needs read-only so `git` works inside the sandbox: the worktree's `.git`, and
 * for a linked worktree (whose `.git` is a FILE naming `<mirror>/worktrees/<name>`) that gitdir
 * and the mirror it shares objects and refs with (its `commondir`). Read-only, so nothing a
 * check runs can plant a hook, rewrite config or forge a ref. Paths are real paths.
 */
export function gitReadOnlyPaths(root: string): string[] {
  const dotGit = path.join(root, '.git');
  if (!existsSync(dotGit)) return [];
  const paths = [dotGit];
  if (statSync(dotGit).isDirectory()) return paths;
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
  if (!match?.[1]) return paths;
  const gitdir = realOrUndefined(path.resolve(root, match[1]));
  if (!gitdir) return paths;
  paths.push(gitdir);
  const commondirFile = path.join(gitdir, 'commondir');
  if (existsSync(commondirFile)) {
    const common = realOrUndefined(path.resolve(gitdir, readFileSync(commondirFile, 'utf8').trim()));
    // The gitdir sits inside the mirror: one mount covers both.
    if (common) return [dotGit, common];
  }
  return paths;
}

function realOrUndefined(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}
