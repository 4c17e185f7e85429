import { type CommitSignature, PullwrightError } from '@pullwright/core';
import type { Forge } from '@pullwright/forge';
import { type GitAuth, runGit } from '@pullwright/security';
import type { WorkspaceManager } from '@pullwright/workspace';
import { commitsToCreate } from './commits-to-create.ts';
import type { ScannedPush } from './scanned-push.ts';

/**
 * Where a publish goes: the worktree's new commits, as the secret scan cleared them (its
 * `headSha` over `since`, the commits the forge has already), onto their branch at
 * `expectedRemoteSha`.
 */
interface CommitsTarget {
  repo: string;
  dir: string;
  auth: GitAuth | undefined;
  /** The branch's sha on the forge now; undefined: it does not exist yet. */
  expectedRemoteSha: string | undefined;
  scanned: ScannedPush;
}

export interface PublishedCommits {
  /** The branch's new head: the forge's own commit when it recreated them, else `headSha`. */
  headSha: string;
  signature: CommitSignature;
}

/**
 * Publishes the worktree's new commits without force. Where the forge has a commit API
 * (GitHub's git data), they are recreated through it — same trees, messages, trailers,
 * authors and parents — so GitHub signs them, and the worktree adopts the forge's head (the
 * files do not change). Only where that is impossible (a mode or header the API cannot write,
 * the endpoints answering 404/403 on an old GHES) are they pushed over git, unsigned, and the
 * signature says why; a forge with no such API (the local forge) gets a push, unsigned, no reason. `attempt` > 1: an earlier attempt may have landed; then nothing is redone.
 */
export async function publishCommits(
  deps: { forge: Forge; workspace: WorkspaceManager },
  target: CommitsTarget,
  attempt = 1,
): Promise<PublishedCommits> {
  const { forge, workspace } = deps;
  const { dir, auth } = target;
  const { branch, headSha } = target.scanned;
  // The worktree must still be what was scanned: a push sends its HEAD.
  const head = await workspace.headSha(dir);
  if (head !== headSha)
    throw new PullwrightError(
      'conflict',
      `the worktree moved after its secret scan (${head.slice(0, 12)}); not publishing`,
    );
  const since = target.expectedRemoteSha ?? '';
  // No reason where the forge signs nothing (the local forge): unsigned is all it does, not a fallback.
  let reason: string | undefined;
  if (forge.createCommits) {
    if (attempt > 1) {
      const now = await workspace.remoteBranchSha(dir, branch, auth);
      if (
        now &&
        now !== target.expectedRemoteSha &&
        (await workspace.adoptForgeHead(dir, branch, now, { ...(auth ? { auth } : {}), since }))
      )
        return { headSha: now, signature: { state: 'forge' } };
    }
    const commits = await commitsToCreate(dir, headSha, [...target.scanned.since]);
    const result =
      'unsupported' in commits
        ? commits
        : await forge.createCommits(target.repo, {
            branch,
            expectedRemoteSha: target.expectedRemoteSha,
            commits,
            readBlob: (sha) => runGit(dir, ['cat-file', 'blob', sha]),
          });
    if ('headSha' in result) {
      if (!(await workspace.adoptForgeHead(dir, branch, result.headSha, { ...(auth ? { auth } : {}), since })))
        throw new PullwrightError(
          'conflict',
          `the forge's ${branch} is not the commits it was sent (${result.headSha.slice(0, 12)})`,
        );
      return { headSha: result.headSha, signature: { state: 'forge' } };
    }
    reason = result.unsupported;
  }
  const unsigned: PublishedCommits = {
    headSha,
    signature: { state: 'unsigned', ...(reason ? { reason } : {}) },
  };
  if (attempt > 1 && (await workspace.remoteBranchSha(dir, branch, auth)) === headSha) return unsigned;
  await workspace.push(dir, branch, { ...(auth ? { auth } : {}), expectedRemoteSha: since });
  return unsigned;
}
