import type { GitAuth } from '@pullwright/security';

export interface PullRequest {
  number: number;
  url: string;
  repo: string;
  head: string;
  base: string;
  headSha: string;
  title: string;
  body: string;
  state: 'open' | 'closed' | 'merged';
  mergeSha?: string;
}

export interface OpenPullRequest {
  repo: string;
  head: string;
  base: string;
  title: string;
  body: string;
}

export interface MergeResult {
  mergeSha: string;
}

/** Where repositories live and pull requests are opened: GitHub, or bare repos on disk. */
export interface Forge {
  readonly name: string;
  /** URL git clones from and pushes to. Carries no credentials. */
  cloneUrl(repo: string): string;
  /** Whether operations can target this repository at all (a 400 at request time beats a failed job). */
  repositoryExists(repo: string): Promise<boolean>;
  /** Credentials for one operation's git traffic, or none (local forge). */
  gitAuth(repo: string): Promise<GitAuth | undefined>;
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
  /** Unified diff of the PR against its base (for the dashboard and risk scoring). */
  pullRequestDiff(repo: string, number: number): Promise<string>;
}
