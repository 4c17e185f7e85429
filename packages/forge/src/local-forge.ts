import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { NotFoundError, PullwrightError, RepoSlug } from '@pullwright/core';
import { GitCommandError, runGit } from '@pullwright/security';
import type { Cluster, Redis } from 'ioredis';
import type {
  CheckRun,
  CheckRunDetails,
  Forge,
  MergeResult,
  OpenPullRequest,
  PullRequest,
  ReviewComment,
} from './forge.ts';

/** git in one of the forge's repositories; only a local push between them needs a transport. */
async function git(cwd: string, args: string[]): Promise<string> {
  return (await runGit(cwd, args, { protocols: ['file'] })).toString('utf8');
}

interface LocalForgeOptions {
  /** `<DATA_DIR>/forge`: repositories at `<root>/<owner>/<name>.git`. */
  root: string;
  /** A single node or a Cluster: each MULTI here touches one repository's `{…}` slot. */
  redis: Redis | Cluster;
  keyPrefix: string;
  /** Base of the links shown for pull requests (the API serves them). */
  webUrl: string;
}

/**
 * A forge on local disk: any bare repository under the root can be the target of an
 * operation; pull requests live in Redis; merging is a real git merge into the bare repo.
 * Used when no GitHub App is configured, by the demo and by the tests.
 */
export class LocalForge implements Forge {
  readonly name = 'local';

  constructor(private readonly options: LocalForgeOptions) {}

  repoDir(repo: string): string {
    RepoSlug.parse(repo);
    return path.join(this.options.root, `${repo}.git`);
  }

  cloneUrl(repo: string): string {
    return this.repoDir(repo);
  }

  async gitAuth(): Promise<undefined> {
    return undefined;
  }

  async revokeToken(): Promise<void> {}

  hasRepository(repo: string): boolean {
    return existsSync(path.join(this.repoDir(repo), 'HEAD'));
  }

  async repositoryExists(repo: string): Promise<boolean> {
    return this.hasRepository(repo);
  }

  /**
   * Creates a bare repository with one commit on `branch` holding `files`, and/or the
   * contents of directory `fromDir` (files wins on a clash).
   */
  async createRepository(
    repo: string,
    files: Record<string, string>,
    options: { branch?: string; fromDir?: string } = {},
  ): Promise<void> {
    const branch = options.branch ?? 'main';
    const dir = this.repoDir(repo);
    if (this.hasRepository(repo)) throw new PullwrightError('conflict', `repository ${repo} already exists`);
    await mkdir(dir, { recursive: true });
    await git(dir, ['init', '--bare', `--initial-branch=${branch}`]);
    const work = await mkdtemp(path.join(os.tmpdir(), 'pw-seed-'));
    try {
      await git(work, ['init', `--initial-branch=${branch}`]);
      if (options.fromDir) await cp(options.fromDir, work, { recursive: true });
      for (const [file, content] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(work, file)), { recursive: true });
        await writeFile(path.join(work, file), content);
      }
      await git(work, ['add', '--all']);
      await git(work, ['commit', '-m', 'Initial commit']);
      await git(work, ['push', dir, `${branch}:refs/heads/${branch}`]);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  async branchSha(repo: string, branch: string): Promise<string | undefined> {
    const out = await git(this.repoDir(repo), ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]).catch(
      () => '',
    );
    return out.trim() || undefined;
  }

  async readFile(repo: string, branch: string, file: string): Promise<string | undefined> {
    if (!(await this.branchSha(repo, branch))) return undefined;
    // `--` is not accepted by cat-file; the object name is one argument, never an option.
    return git(this.repoDir(repo), ['cat-file', 'blob', `refs/heads/${branch}:${file}`]).catch((err: unknown) => {
      if (err instanceof GitCommandError) return undefined;
      throw err;
    });
  }

  /** Branch name → head sha, for tests and the dashboard. */
  async listBranches(repo: string): Promise<Record<string, string>> {
    const out = await git(this.repoDir(repo), [
      'for-each-ref',
      '--format=%(refname:short) %(objectname)',
      'refs/heads',
    ]);
    return Object.fromEntries(
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ') as [string, string]),
    );
  }

  #prKey(repo: string, number: number): string {
    return `${this.options.keyPrefix}:forge:{${repo}}:pr:${number}`;
  }

  /** Beside the PR records, not under them: `…:pr:*` holds PR records only. */
  #trackingKey(repo: string, number: number): string {
    return `${this.options.keyPrefix}:forge:{${repo}}:tracking:${number}`;
  }

  /** Replies in review threads and comments on the PR's conversation, in the order they were posted. */
  #commentsKey(repo: string, number: number): string {
    return `${this.options.keyPrefix}:forge:{${repo}}:comments:${number}`;
  }

  #headIndexKey(repo: string): string {
    return `${this.options.keyPrefix}:forge:{${repo}}:open-by-head`;
  }

  async openPullRequest(req: OpenPullRequest): Promise<PullRequest> {
    const existing = await this.findOpenPullRequest(req.repo, req.head);
    if (existing) return existing;
    const headSha = await this.branchSha(req.repo, req.head);
    if (!headSha) throw new PullwrightError('forge_failed', `branch ${req.head} is not in ${req.repo}`);
    if (!(await this.branchSha(req.repo, req.base)))
      throw new PullwrightError('forge_failed', `base ${req.base} is not in ${req.repo}`);
    const { redis } = this.options;
    const number = await redis.incr(`${this.options.keyPrefix}:forge:{${req.repo}}:pr-seq`);
    const pr: PullRequest = {
      number,
      url: `${this.options.webUrl}/forge/${req.repo}/pulls/${number}`,
      repo: req.repo,
      head: req.head,
      base: req.base,
      headSha,
      title: req.title,
      body: req.body,
      state: 'open',
    };
    // The record first, then the index entry that makes it the branch's PR (HSETNX: two
    // workers racing on one branch end with one PR). A kill between the two leaves only an
    // unindexed record, never an index entry pointing at nothing.
    await redis.set(this.#prKey(req.repo, number), JSON.stringify(pr));
    const won = await redis.hsetnx(this.#headIndexKey(req.repo), req.head, String(number));
    if (!won) {
      await redis.del(this.#prKey(req.repo, number));
      const again = await this.findOpenPullRequest(req.repo, req.head);
      if (again) return again;
      throw new PullwrightError('conflict', `another pull request for ${req.head} is being opened`);
    }
    return pr;
  }

  async findOpenPullRequest(repo: string, head: string): Promise<PullRequest | undefined> {
    const number = await this.options.redis.hget(this.#headIndexKey(repo), head);
    if (!number) return undefined;
    const pr = await this.getPullRequest(repo, Number(number)).catch(() => undefined);
    return pr?.state === 'open' ? pr : undefined;
  }

  async getPullRequest(repo: string, number: number): Promise<PullRequest> {
    const raw = await this.options.redis.get(this.#prKey(repo, number));
    if (!raw) throw new NotFoundError('pull request', `${repo}#${number}`);
    const pr = JSON.parse(raw) as PullRequest;
    if (pr.state === 'open') pr.headSha = (await this.branchSha(repo, pr.head)) ?? pr.headSha;
    return pr;
  }

  /**
   * A merge commit written with plumbing directly in the bare repo: `merge-tree` computes
   * the result (or the conflicts) without a worktree, and `update-ref` with the old value
   * makes the base move only if nobody pushed in between.
   */
  async mergePullRequest(
    repo: string,
    number: number,
    options: { expectedHeadSha: string; message: string },
  ): Promise<MergeResult> {
    const pr = await this.getPullRequest(repo, number);
    if (pr.state !== 'open') throw new PullwrightError('conflict', `pull request #${number} is ${pr.state}`);
    if (pr.headSha !== options.expectedHeadSha) {
      throw new PullwrightError(
        'conflict',
        `head moved: expected ${options.expectedHeadSha.slice(0, 12)}, found ${pr.headSha.slice(0, 12)}`,
      );
    }
    const dir = this.repoDir(repo);
    const baseSha = await this.branchSha(repo, pr.base);
    if (!baseSha) throw new PullwrightError('forge_failed', `base ${pr.base} is gone`);
    let tree: string;
    try {
      tree = (await git(dir, ['merge-tree', '--write-tree', '--name-only', baseSha, pr.headSha]))
        .split('\n')[0]!
        .trim();
    } catch (err) {
      const conflicted = (err instanceof GitCommandError ? err.stdout : '')
        .split('\n')
        .slice(1)
        .filter((l) => l && !l.startsWith('Auto-merging') && !l.startsWith('CONFLICT'))
        .join(', ');
      throw new PullwrightError('conflict', `merge conflict with ${pr.base}${conflicted ? ` in ${conflicted}` : ''}`);
    }
    const mergeSha = (
      await git(dir, ['commit-tree', tree, '-p', baseSha, '-p', pr.headSha, '-m', options.message])
    ).trim();
    await git(dir, ['update-ref', `refs/heads/${pr.base}`, mergeSha, baseSha]);
    const merged: PullRequest = { ...pr, state: 'merged', mergeSha };
    await this.options.redis
      .multi()
      .set(this.#prKey(repo, number), JSON.stringify(merged))
      .hdel(this.#headIndexKey(repo), pr.head)
      .exec();
    return { mergeSha };
  }

  async closePullRequest(repo: string, number: number): Promise<void> {
    const pr = await this.getPullRequest(repo, number);
    if (pr.state !== 'open') return;
    await this.options.redis
      .multi()
      .set(this.#prKey(repo, number), JSON.stringify({ ...pr, state: 'closed' }))
      .hdel(this.#headIndexKey(repo), pr.head)
      .exec();
  }

  async updatePullRequestBody(repo: string, number: number, body: string): Promise<void> {
    const raw = await this.options.redis.get(this.#prKey(repo, number));
    if (!raw) throw new NotFoundError('pull request', `${repo}#${number}`);
    await this.options.redis.set(
      this.#prKey(repo, number),
      JSON.stringify({ ...(JSON.parse(raw) as PullRequest), body }),
    );
  }

  /** Kept on the PR's record in Redis; there is no conversation to post into. */
  async upsertTrackingComment(repo: string, number: number, body: string): Promise<void> {
    await this.options.redis.set(this.#trackingKey(repo, number), body);
  }

  async trackingComment(repo: string, number: number): Promise<string | undefined> {
    return (await this.options.redis.get(this.#trackingKey(repo, number))) ?? undefined;
  }

  /** Local pull requests have no inline review: feedback arrives as instructions. */
  async listReviewComments(): Promise<ReviewComment[]> {
    return [];
  }

  /** Kept beside the PR, as a review thread would show it, so what was answered can be read back. */
  async replyToReviewComment(repo: string, number: number, commentId: number, body: string): Promise<void> {
    await this.options.redis.rpush(this.#commentsKey(repo, number), JSON.stringify({ inReplyTo: commentId, body }));
  }

  /** Local repositories have no issues, reactions or CI: work starts from the API, Slack or the dashboard. */
  async botLogin(): Promise<undefined> {
    return undefined;
  }

  async addReaction(): Promise<void> {}

  async commentOnIssue(repo: string, number: number, body: string): Promise<void> {
    await this.options.redis.rpush(this.#commentsKey(repo, number), JSON.stringify({ body }));
  }

  /** What `replyToReviewComment` and `commentOnIssue` posted on a PR (or issue), oldest first. */
  async comments(repo: string, number: number): Promise<Array<{ inReplyTo?: number; body: string }>> {
    const raw = await this.options.redis.lrange(this.#commentsKey(repo, number), 0, -1);
    return raw.map((r) => JSON.parse(r) as { inReplyTo?: number; body: string });
  }

  async listCheckRuns(): Promise<CheckRun[]> {
    return [];
  }

  async checkRunDetails(): Promise<CheckRunDetails> {
    return { annotations: [], log: '' };
  }

  /** The local forge has no accounts: whoever can reach the API may steer. */
  async hasWriteAccess(): Promise<boolean> {
    return true;
  }

  /** The PR's diff against its base, for the dashboard. */
  async pullRequestDiff(repo: string, number: number): Promise<string> {
    const pr = await this.getPullRequest(repo, number);
    const base = pr.state === 'merged' ? `${pr.mergeSha}^1` : pr.base;
    return git(this.repoDir(repo), ['diff', '--no-color', `${base}...${pr.headSha}`]);
  }
}
