import type { Octokit } from '@octokit/rest';
import { PullwrightError } from '@pullwright/core';
import type { CommitToCreate, CommitUpload, CommitUploadResult, TreeChange } from './forge.ts';
import { statusOf } from './github-installation-tokens.ts';

/** Entries per tree request: a large change is built as a chain of trees, each on the one before (`base_tree`). */
const TREE_ENTRIES_PER_REQUEST = 100;

type RepoAt = { owner: string; repo: string };

/** A git-data endpoint GitHub does not serve here (an old GHES) or does not let the app use: push instead. */
class GitDataUnavailable extends Error {}

/**
 * Recreates `upload.commits` through GitHub's git-data API — each new blob once, the tree on
 * its first parent's tree in batches, the commit with the same message, author and parents
 * and no committer (GitHub is the committer and signs it: Verified) — then moves the branch
 * without force: `PATCH …/git/refs` with `force: false` is accepted only as a fast-forward of
 * what the branch holds, a new branch only where none exists. Every tree must come out as the
 * local one (trees are content-addressed): then the commits hold exactly what was scanned.
 */
export async function createCommitsThroughApi(
  api: Octokit,
  at: RepoAt,
  upload: CommitUpload,
): Promise<CommitUploadResult> {
  try {
    const created = new Map<string, string>();
    const blobs = new Set<string>();
    let head = upload.expectedRemoteSha;
    for (const commit of upload.commits) {
      for (const change of commit.changes) if (!('deleted' in change)) await createBlob(api, at, change, upload, blobs);
      const tree = await createTree(api, at, commit);
      if (tree !== commit.tree)
        return { unsupported: `the tree GitHub built for ${commit.sha.slice(0, 12)} differs from the local one` };
      const { data } = await gitData(() =>
        api.rest.git.createCommit({
          ...at,
          message: commit.message,
          tree,
          parents: commit.parents.map((p) => created.get(p) ?? p),
          author: commit.author,
        }),
      );
      created.set(commit.sha, data.sha);
      head = data.sha;
    }
    if (!head) throw new PullwrightError('forge_failed', `no commits to create on ${upload.branch}`);
    if (head !== upload.expectedRemoteSha) await moveBranch(api, at, upload, head);
    return { headSha: head };
  } catch (err) {
    if (err instanceof GitDataUnavailable) return { unsupported: err.message };
    throw err;
  }
}

async function createBlob(
  api: Octokit,
  at: RepoAt,
  change: Extract<TreeChange, { blob: string }>,
  upload: CommitUpload,
  done: Set<string>,
): Promise<void> {
  if (done.has(change.blob)) return;
  const content = (await upload.readBlob(change.blob)).toString('base64');
  const { data } = await gitData(() => api.rest.git.createBlob({ ...at, content, encoding: 'base64' }));
  if (data.sha !== change.blob)
    throw new PullwrightError('forge_failed', `GitHub stored ${change.path} as ${data.sha.slice(0, 12)}, not as sent`);
  done.add(change.blob);
}

async function createTree(api: Octokit, at: RepoAt, commit: CommitToCreate): Promise<string> {
  let tree = commit.baseTree;
  for (let i = 0; i < commit.changes.length; i += TREE_ENTRIES_PER_REQUEST) {
    const entries = commit.changes
      .slice(i, i + TREE_ENTRIES_PER_REQUEST)
      .map((c) =>
        'deleted' in c
          ? { path: c.path, mode: '100644' as const, type: 'blob' as const, sha: null }
          : { path: c.path, mode: c.mode, type: 'blob' as const, sha: c.blob },
      );
    const { data } = await gitData(() => api.rest.git.createTree({ ...at, base_tree: tree, tree: entries }));
    tree = data.sha;
  }
  return tree;
}

async function moveBranch(api: Octokit, at: RepoAt, upload: CommitUpload, sha: string): Promise<void> {
  const ref = `heads/${upload.branch}`;
  try {
    if (upload.expectedRemoteSha === undefined) await api.rest.git.createRef({ ...at, ref: `refs/${ref}`, sha });
    else await api.rest.git.updateRef({ ...at, ref, sha, force: false });
  } catch (err) {
    if (statusOf(err) !== 422) throw err;
    throw new PullwrightError(
      'conflict',
      `GitHub refused to move ${upload.branch} to ${sha.slice(0, 12)}: ${upload.expectedRemoteSha ? 'not a fast-forward of the branch (it moved)' : 'the branch exists already'}`,
    );
  }
}

/** A git-data call; 404 and 403 mean the endpoint is not there for this app (old GHES, no access). */
async function gitData<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const status = statusOf(err);
    if (status === 404 || status === 403) throw new GitDataUnavailable(`GitHub's git-data API answered ${status}`);
    throw err;
  }
}
