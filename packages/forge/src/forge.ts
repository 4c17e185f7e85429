import type { GitAuth } from '@pullwright/security';

export interface PullRequest {
  number: number;
  url: string;
  repo: string;
  head: string;
  base: string;
  headSha: string;
  /** The base branch's commit the PR is compared with (GitHub's `base.sha`); absent on the local forge. */
  baseSha?: string;
  title: string;
  body: string;
  state: 'open' | 'closed' | 'merged';
  mergeSha?: string;
  /** When it was merged (ISO); set on a merged PR read from GitHub. */
  mergedAt?: string;
}

export interface OpenPullRequest {
  repo: string;
  head: string;
  base: string;
  title: string;
  body: string;
  /** Open as a draft; the forge's own default when omitted (GitHub: GITHUB_PR_DRAFT). */
  draft?: boolean;
}

/** An inline review comment (or the body of a review) a revision must answer. */
export interface ReviewComment {
  id: number;
  user: string;
  body: string;
  /** Absent for a review's body or a conversation comment: those have no thread to reply in. */
  path?: string;
  line?: number;
}

/** The reactions Pullwright leaves: seen (`eyes`), refused (`confused`). */
export type ReactionContent = 'eyes' | 'confused' | 'rocket' | '+1';
export type ReactionTarget = { issue: number } | { comment: number };

/** One check run on a commit (GitHub's Checks API: Actions jobs and other CI apps alike). */
export interface CheckRun {
  id: number;
  name: string;
  /** `queued`, `in_progress`, `completed`… */
  status: string;
  /** Set once completed: `success`, `failure`, `timed_out`, `cancelled`, `neutral`, `skipped`… */
  conclusion: string | null;
  url: string;
  title: string;
  summary: string;
}

/** What a failing check run says beyond its summary: its annotations and the end of its log. */
export interface CheckRunDetails {
  annotations: string[];
  /** Empty when the run has no log the app may read (not a GitHub Actions job, or no permission). */
  log: string;
  /** Permissions the installation has not granted that left something out (`actions: read`: no log). */
  missingPermissions?: string[];
}

/** An issue's own text: a merged PR's linked issue states the problem an evaluation task poses. */
export interface IssueText {
  title: string;
  body: string;
}

export interface MergeResult {
  mergeSha: string;
}

/** One path a commit changes against its first parent: a blob at a mode, or gone. */
export type TreeChange =
  | { path: string; mode: '100644' | '100755' | '120000'; blob: string }
  | { path: string; deleted: true };

/** A local commit to recreate on the forge: the same tree, message (trailers included), author and parents. */
export interface CommitToCreate {
  sha: string;
  /** Local shas: those also in this list are replaced by their recreated commit; the others are on the forge already. */
  parents: string[];
  tree: string;
  /** The first parent's tree (the same sha locally and on the forge: trees are content-addressed). */
  baseTree: string;
  message: string;
  author: { name: string; email: string; date: string };
  /** Against the first parent; the tree is built on the first parent's tree (`base_tree`). */
  changes: TreeChange[];
}

/** What `createCommits` publishes: commits oldest first, the branch moved to the last one without force. */
export interface CommitUpload {
  branch: string;
  /** The branch's sha on the forge now; undefined: the branch does not exist yet (it is created). */
  expectedRemoteSha: string | undefined;
  commits: CommitToCreate[];
  readBlob(sha: string): Promise<Buffer>;
}

/** The new head, or why the forge's API cannot publish these commits (the caller pushes them instead). */
export type CommitUploadResult = { headSha: string } | { unsupported: string };

/** Where repositories live and pull requests are opened: GitHub, or bare repos on disk. */
export interface Forge {
  readonly name: string;
  /** URL git clones from and pushes to. Carries no credentials. */
  cloneUrl(repo: string): string;
  /** Whether operations can target this repository at all (a 400 at request time beats a failed job). */
  repositoryExists(repo: string): Promise<boolean>;
  /**
   * Credentials for git traffic to `repo`, or none (local forge). Each `holder` (an
   * operation id) gets its own, valid for at least 10 more minutes: call it again before a
   * late push instead of keeping the first value for a long job.
   */
  gitAuth(repo: string, holder?: string): Promise<GitAuth | undefined>;
  /** Ends the credentials `gitAuth` gave `holder` (GitHub: revokes the installation token). */
  revokeToken(repo: string, holder?: string): Promise<void>;
  /** Opens a PR, or returns the open one for the same head branch (a retried job must not open a second). */
  openPullRequest(req: OpenPullRequest): Promise<PullRequest>;
  findOpenPullRequest(repo: string, head: string): Promise<PullRequest | undefined>;
  getPullRequest(repo: string, number: number): Promise<PullRequest>;
  /** Merges only if the PR head is still `expectedHeadSha`; throws a conflict error otherwise. */
  mergePullRequest(
    repo: string,
    number: number,
    options: { expectedHeadSha: string; message: string },
  ): Promise<MergeResult>;
  closePullRequest(repo: string, number: number): Promise<void>;
  /** Replaces the PR description: every push rewrites it with a verification block signed for the new head. */
  updatePullRequestBody(repo: string, number: number, body: string): Promise<void>;
  /** Unified diff of the PR against its base (for the dashboard and risk scoring). */
  pullRequestDiff(repo: string, number: number): Promise<string>;
  /** The one progress comment on a PR: created the first time, edited in place afterwards. */
  upsertTrackingComment(repo: string, number: number, body: string): Promise<void>;
  /** Inline review comments on a PR (replies excluded), or those of one review. */
  listReviewComments(repo: string, number: number, reviewId?: number): Promise<ReviewComment[]>;
  /** Answers an inline review comment in its own thread. */
  replyToReviewComment(repo: string, number: number, commentId: number, body: string): Promise<void>;
  /** The login of the app's own bot user (`<slug>[bot]`): assigning it to an issue starts work. None locally. */
  botLogin(): Promise<string | undefined>;
  /** A reaction on an issue (or PR) or on one of its comments: the trigger was seen. */
  addReaction(repo: string, target: ReactionTarget, content: ReactionContent): Promise<void>;
  /** A one-off answer on an issue or PR (a refused or duplicate trigger), not the tracking comment. */
  commentOnIssue(repo: string, number: number, body: string): Promise<void>;
  /** The check runs reported for a commit. */
  listCheckRuns(repo: string, sha: string): Promise<CheckRun[]>;
  checkRunDetails(repo: string, checkRunId: number): Promise<CheckRunDetails>;
  /** Whether `user` may push to `repo` (admin, maintain or write): only they may steer an operation. */
  hasWriteAccess(repo: string, user: string): Promise<boolean>;
  /** A file's text on a branch, or undefined when the branch or the file is not there (`.pullwright.yml`'s schedules). */
  readFile(repo: string, branch: string, file: string): Promise<string | undefined>;
  /**
   * Recreates local commits through the forge's API, which signs them (GitHub: Verified), and
   * moves the branch without force. Absent where the forge has no such API (the local forge).
   */
  createCommits?(repo: string, upload: CommitUpload): Promise<CommitUploadResult>;
}
