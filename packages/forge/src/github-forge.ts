import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { type Logger, PullwrightError, silentLogger } from '@pullwright/core';
import type { GitAuth } from '@pullwright/security';
import type {
  CheckRun,
  CheckRunDetails,
  CommitUpload,
  CommitUploadResult,
  Forge,
  IssueText,
  MergeResult,
  OpenPullRequest,
  PullRequest,
  ReactionContent,
  ReactionTarget,
  ReviewComment,
} from './forge.ts';
import { githubApiBaseUrl } from './github-api-base-url.ts';
import { createCommitsThroughApi } from './github-git-data.ts';
import {
  forgeError,
  GitHubInstallationTokens,
  type InstallationTokenSource,
  splitRepo,
  statusOf,
} from './github-installation-tokens.ts';

/** Hidden in the tracking comment so we find our own comment again instead of posting another. */
const TRACKING_COMMENT_MARKER = '<!-- pullwright:tracking -->';

/** A job log can be megabytes; its failure is at the end. What is kept before redaction and the task's own cut. */
const LOG_TAIL_BYTES = 64 * 1024;
/** Annotations read per failing check: the first ones name the failure, the rest repeat it. */
const MAX_ANNOTATIONS = 50;

/** Roles that can push: GitHub reports maintain as `write` in `permission`, so read `role_name` too. */
const WRITE_ROLES = new Set(['admin', 'maintain', 'write']);

/**
 * How the forge gets installation tokens: as the App (its id and PEM key, see
 * `readGitHubPrivateKey` for env values that are paths), or from the API's credential broker
 * (a worker that holds no key).
 */
type GitHubForgeOptions = GitHubForgeSettings &
  ({ appId: string; privateKey: string } | { tokens: InstallationTokenSource });

interface GitHubForgeSettings {
  /** GITHUB_URL: https://github.com, or a GitHub Enterprise Server's web URL. */
  url: string;
  /** Open pull requests as drafts (GITHUB_PR_DRAFT). Default false: ready for review. */
  draft?: boolean;
  logger?: Logger;
  /** Every credential minted is handed here first, so the process Redactor masks it. */
  onSecret?: (value: string) => void;
  refreshMarginMs?: number;
}

/** The owner and name Octokit takes for a repository's endpoints, spread into each call. */
type RepoAt = { owner: string; repo: string };

type PullData = {
  number: number;
  html_url: string;
  title: string;
  body: string | null;
  state: string;
  merged?: boolean | null;
  merged_at?: string | null;
  merge_commit_sha: string | null;
  head: { ref: string; sha: string };
  base: { ref: string; sha?: string };
};

/**
 * The forge on GitHub (or GHES) as a GitHub App. Every call for a repository uses an
 * installation token scoped to that one repository and to contents, pull_requests and
 * issues; git gets its own token per operation (`gitAuth(repo, opId)`), revoked when the
 * operation is done. Tokens never appear in URLs, logs or error messages.
 */
export class GitHubForge implements Forge {
  readonly name = 'github';
  readonly baseUrl: string;
  readonly tokens: InstallationTokenSource;
  readonly #logger: Logger;
  readonly #webUrl: string;
  readonly #trackingComments = new Map<string, number>();
  /** The App itself (JWT); none on a worker whose tokens come from the broker. */
  readonly #app: Octokit | undefined;
  readonly #minted: GitHubInstallationTokens | undefined;
  #botLogin: Promise<string> | undefined;

  constructor(private readonly options: GitHubForgeOptions) {
    this.#logger = options.logger ?? silentLogger();
    this.#webUrl = options.url.replace(/\/+$/, '');
    this.baseUrl = githubApiBaseUrl(this.#webUrl);
    if ('tokens' in options) {
      this.tokens = options.tokens;
      return;
    }
    options.onSecret?.(options.privateKey);
    const app = new Octokit({
      baseUrl: this.baseUrl,
      authStrategy: createAppAuth,
      auth: { appId: options.appId, privateKey: options.privateKey },
      log: this.#octokitLog(),
    });
    this.#app = app;
    this.#minted = new GitHubInstallationTokens(app, {
      ...(options.refreshMarginMs !== undefined ? { refreshMarginMs: options.refreshMarginMs } : {}),
      ...(options.onSecret ? { onToken: options.onSecret } : {}),
      logger: this.#logger,
      revoke: async (token) => {
        await this.#client(token).rest.apps.revokeInstallationAccessToken();
      },
    });
    this.tokens = this.#minted;
  }

  /** The tokens this process mints with the App key: what the credential broker hands out. */
  get mintedTokens(): GitHubInstallationTokens {
    if (!this.#minted) throw appOnly('minting installation tokens');
    return this.#minted;
  }

  cloneUrl(repo: string): string {
    return `${this.#webUrl}/${repo}.git`;
  }

  /** True when the app is installed on the repository (what matters for running an operation there). */
  async repositoryExists(repo: string): Promise<boolean> {
    return (await this.mintedTokens.installationId(repo)) !== undefined;
  }

  async gitAuth(repo: string, holder = ''): Promise<GitAuth> {
    return { username: 'x-access-token', token: await this.tokens.get(repo, holder) };
  }

  revokeToken(repo: string, holder = ''): Promise<void> {
    return this.tokens.revoke(repo, holder);
  }

  async openPullRequest(req: OpenPullRequest): Promise<PullRequest> {
    const existing = await this.findOpenPullRequest(req.repo, req.head);
    if (existing) return existing;
    return this.#call(
      req.repo,
      `opening a pull request for ${req.head}`,
      async (api, at) => {
        const { data } = await api.rest.pulls.create({
          ...at,
          head: req.head,
          base: req.base,
          title: req.title,
          body: req.body,
          draft: req.draft ?? this.options.draft ?? false,
        });
        return toPullRequest(req.repo, data);
      },
      // Another worker opened it between our lookup and our create: use theirs.
      async (err) => (statusOf(err) === 422 ? this.findOpenPullRequest(req.repo, req.head) : undefined),
    );
  }

  findOpenPullRequest(repo: string, head: string): Promise<PullRequest | undefined> {
    return this.#call(repo, `listing pull requests of ${repo}`, async (api, at) => {
      const { data } = await api.rest.pulls.list({ ...at, head: `${at.owner}:${head}`, state: 'open' });
      const first = data[0];
      return first ? toPullRequest(repo, first) : undefined;
    });
  }

  getPullRequest(repo: string, number: number): Promise<PullRequest> {
    return this.#call(repo, `reading pull request #${number}`, async (api, at) => {
      const { data } = await api.rest.pulls.get({ ...at, pull_number: number });
      return toPullRequest(repo, data);
    });
  }

  /** GitHub checks `sha` against the head itself, atomically with the merge. */
  mergePullRequest(
    repo: string,
    number: number,
    options: { expectedHeadSha: string; message: string },
  ): Promise<MergeResult> {
    const [title, ...rest] = options.message.split('\n');
    return this.#call(
      repo,
      `merging pull request #${number}`,
      async (api, at) => {
        const { data } = await api.rest.pulls.merge({
          ...at,
          pull_number: number,
          sha: options.expectedHeadSha,
          merge_method: 'merge',
          commit_title: title ?? `Merge pull request #${number}`,
          commit_message: rest.join('\n').trim(),
        });
        return { mergeSha: data.sha };
      },
      (err) => {
        const status = statusOf(err);
        if (status === 409) {
          throw new PullwrightError(
            'conflict',
            `head moved: pull request #${number} is no longer at ${options.expectedHeadSha.slice(0, 12)}`,
            { status },
          );
        }
        if (status === 405)
          throw new PullwrightError('conflict', `pull request #${number} is not mergeable`, { status });
        return undefined;
      },
    );
  }

  async closePullRequest(repo: string, number: number): Promise<void> {
    await this.#call(repo, `closing pull request #${number}`, (api, at) =>
      api.rest.pulls.update({ ...at, pull_number: number, state: 'closed' }),
    );
  }

  async updatePullRequestBody(repo: string, number: number, body: string): Promise<void> {
    await this.#call(repo, `updating pull request #${number}`, (api, at) =>
      api.rest.pulls.update({ ...at, pull_number: number, body }),
    );
  }

  pullRequestDiff(repo: string, number: number): Promise<string> {
    return this.#call(repo, `reading the diff of pull request #${number}`, async (api, at) => {
      const { data } = await api.rest.pulls.get({ ...at, pull_number: number, mediaType: { format: 'diff' } });
      return data as unknown as string;
    });
  }

  /**
   * One comment per PR, found again by its marker among the comments our app wrote (a
   * person quoting the marker does not make their comment ours), then edited in place.
   */
  upsertTrackingComment(repo: string, number: number, body: string): Promise<void> {
    const text = `${TRACKING_COMMENT_MARKER}\n${body}`;
    const key = `${repo}#${number}`;
    return this.#call(repo, `updating the tracking comment on #${number}`, async (api, at) => {
      const id = this.#trackingComments.get(key) ?? (await this.#findTrackingComment(api, at, number));
      if (id !== undefined) {
        try {
          await api.rest.issues.updateComment({ ...at, comment_id: id, body: text });
          this.#trackingComments.set(key, id);
          return;
        } catch (err) {
          // Deleted by someone: post a new one below.
          if (statusOf(err) !== 404) throw err;
        }
      }
      const { data } = await api.rest.issues.createComment({ ...at, issue_number: number, body: text });
      this.#trackingComments.set(key, data.id);
    });
  }

  listReviewComments(repo: string, number: number, reviewId?: number): Promise<ReviewComment[]> {
    return this.#call(repo, `listing review comments of #${number}`, async (api, at) => {
      const data =
        reviewId === undefined
          ? await api.paginate(api.rest.pulls.listReviewComments, { ...at, pull_number: number })
          : await api.paginate(api.rest.pulls.listCommentsForReview, {
              ...at,
              pull_number: number,
              review_id: reviewId,
            });
      return data
        .filter((c) => !('in_reply_to_id' in c && c.in_reply_to_id))
        .map((c) => {
          const line = ('line' in c ? c.line : undefined) ?? ('original_line' in c ? c.original_line : undefined);
          return {
            id: c.id,
            user: c.user?.login ?? 'unknown',
            body: c.body,
            path: c.path,
            ...(typeof line === 'number' ? { line } : {}),
          };
        });
    });
  }

  async replyToReviewComment(repo: string, number: number, commentId: number, body: string): Promise<void> {
    await this.#call(repo, `replying to review comment ${commentId}`, (api, at) =>
      api.rest.pulls.createReplyForReviewComment({ ...at, pull_number: number, comment_id: commentId, body }),
    );
  }

  /**
   * Pull requests merged into `base`, newest merge first, merged at or after `since`; at most
   * `max` (evaluation mining, see @pullwright/eval). GitHub lists closed PRs by last update,
   * newest first: a PR merged after `since` was updated after it too, so the walk stops at the
   * first one updated before `since`, or once `max` merged ones are found.
   */
  listMergedPullRequests(repo: string, options: { base: string; since?: Date; max: number }): Promise<PullRequest[]> {
    const since = options.since?.getTime() ?? Number.NEGATIVE_INFINITY;
    return this.#call(repo, `listing merged pull requests of ${repo}`, async (api, at) => {
      const merged: PullRequest[] = [];
      const params = {
        ...at,
        state: 'closed',
        base: options.base,
        sort: 'updated',
        direction: 'desc',
        per_page: 100,
      } as const;
      for await (const { data } of api.paginate.iterator(api.rest.pulls.list, params)) {
        for (const pr of data)
          if (pr.merged_at && Date.parse(pr.merged_at) >= since && pr.merge_commit_sha)
            merged.push(toPullRequest(repo, pr));
        const oldest = data.at(-1);
        if (merged.length >= options.max || !oldest || Date.parse(oldest.updated_at) < since) break;
      }
      return merged.sort((a, b) => Date.parse(b.mergedAt ?? '') - Date.parse(a.mergedAt ?? '')).slice(0, options.max);
    });
  }

  /** An issue's title and body, or undefined when the repository has no such issue. */
  readIssue(repo: string, number: number): Promise<IssueText | undefined> {
    return this.#call(
      repo,
      `reading issue #${number}`,
      async (api, at) => {
        const { data } = await api.rest.issues.get({ ...at, issue_number: number });
        return { title: data.title, body: data.body ?? '' };
      },
      (err) => (statusOf(err) === 404 ? null : undefined),
    ).then((issue) => issue ?? undefined);
  }

  /** `GET /app` with the app's JWT, once per process: the bot user is `<slug>[bot]`. */
  botLogin(): Promise<string> {
    if (!this.#app) return Promise.reject(appOnly('reading the app'));
    this.#botLogin ??= this.#app.rest.apps.getAuthenticated().then(
      ({ data }) => `${data?.slug ?? ''}[bot]`,
      (err: unknown) => {
        this.#botLogin = undefined;
        throw forgeError('reading the app', err);
      },
    );
    return this.#botLogin;
  }

  async addReaction(repo: string, target: ReactionTarget, content: ReactionContent): Promise<void> {
    await this.#call(repo, 'adding a reaction', (api, at) =>
      'issue' in target
        ? api.rest.reactions.createForIssue({ ...at, issue_number: target.issue, content })
        : api.rest.reactions.createForIssueComment({ ...at, comment_id: target.comment, content }),
    );
  }

  async commentOnIssue(repo: string, number: number, body: string): Promise<void> {
    await this.#call(repo, `commenting on #${number}`, (api, at) =>
      api.rest.issues.createComment({ ...at, issue_number: number, body }),
    );
  }

  listCheckRuns(repo: string, sha: string): Promise<CheckRun[]> {
    return this.#call(repo, `listing the check runs of ${sha.slice(0, 12)}`, async (api, at) => {
      const runs = await api.paginate(api.rest.checks.listForRef, { ...at, ref: sha, per_page: 100 });
      return runs.map((r) => ({
        id: r.id,
        name: r.name,
        status: r.status,
        conclusion: r.conclusion,
        url: r.html_url ?? r.details_url ?? '',
        title: r.output.title ?? '',
        summary: r.output.summary ?? '',
      }));
    });
  }

  /**
   * Annotations from the Checks API; the log from Actions (a check run of GitHub Actions is a
   * job with the same id). Another CI app's run has no log the app can read: an empty log.
   */
  checkRunDetails(repo: string, checkRunId: number): Promise<CheckRunDetails> {
    return this.#call(repo, `reading check run ${checkRunId}`, async (api, at) => {
      const { data } = await api.rest.checks.listAnnotations({
        ...at,
        check_run_id: checkRunId,
        per_page: MAX_ANNOTATIONS,
      });
      const annotations = data.map(
        (a) =>
          `${a.path}:${a.start_line}: ${a.annotation_level ?? 'failure'}: ${a.title ? `${a.title}: ` : ''}${a.message ?? ''}`,
      );
      // Without Actions: read the log is not asked for (it would be a 403): the caller says what is missing.
      const missing = (await this.tokens.missingPermissions(repo)).filter((p) => p.startsWith('actions:'));
      if (missing.length > 0) return { annotations, log: '', missingPermissions: missing };
      const log = await api.rest.actions.downloadJobLogsForWorkflowRun({ ...at, job_id: checkRunId }).then(
        ({ data: text }) => String(text).slice(-LOG_TAIL_BYTES),
        (err: unknown) => {
          if (statusOf(err) === 404 || statusOf(err) === 403) return '';
          throw err;
        },
      );
      return { annotations, log };
    });
  }

  hasWriteAccess(repo: string, user: string): Promise<boolean> {
    return this.#call(
      repo,
      `reading ${user}'s permission on ${repo}`,
      async (api, at) => {
        const { data } = await api.rest.repos.getCollaboratorPermissionLevel({ ...at, username: user });
        return WRITE_ROLES.has(data.role_name) || WRITE_ROLES.has(data.permission);
      },
      (err) => (statusOf(err) === 404 ? false : undefined),
    );
  }

  async readFile(repo: string, branch: string, file: string): Promise<string | undefined> {
    const text = await this.#call(
      repo,
      `reading ${file} on ${repo}@${branch}`,
      async (api, at) => {
        const { data } = await api.rest.repos.getContent({
          ...at,
          path: file,
          ref: `refs/heads/${branch}`,
          mediaType: { format: 'raw' },
        });
        return String(data);
      },
      (err) => (statusOf(err) === 404 ? null : undefined),
    );
    return text ?? undefined;
  }

  /** Through the git-data API, so GitHub signs the commits (see `createCommitsThroughApi`). */
  createCommits(repo: string, upload: CommitUpload): Promise<CommitUploadResult> {
    return this.#call(repo, `creating commits on ${upload.branch}`, (api, at) =>
      createCommitsThroughApi(api, at, upload),
    );
  }

  /** Revokes every token this process still holds. */
  close(): Promise<void> {
    return this.tokens.revokeAll();
  }

  /**
   * One REST call for `repo` with its installation client. A failure becomes a `forge_failed`
   * error saying what was being done (the token scrubbed), unless `recover` answers instead:
   * it returns the result, throws its own error, or returns undefined to report the failure.
   */
  async #call<T>(
    repo: string,
    doing: string,
    call: (api: Octokit, at: RepoAt) => Promise<T>,
    recover?: (err: unknown) => T | undefined | Promise<T | undefined>,
  ): Promise<T> {
    const [owner, name] = splitRepo(repo);
    const api = await this.#api(repo);
    try {
      return await call(api, { owner, repo: name });
    } catch (err) {
      const recovered = await recover?.(err);
      if (recovered !== undefined) return recovered;
      throw forgeError(doing, err);
    }
  }

  async #findTrackingComment(api: Octokit, at: RepoAt, number: number): Promise<number | undefined> {
    const comments = await api.paginate(api.rest.issues.listComments, { ...at, issue_number: number });
    return comments.find((c) => c.user?.type === 'Bot' && c.body?.startsWith(TRACKING_COMMENT_MARKER))?.id;
  }

  /** A client for one repository's REST calls, with the process's own token for it. */
  async #api(repo: string): Promise<Octokit> {
    return this.#client(await this.tokens.get(repo));
  }

  #client(token: string): Octokit {
    return new Octokit({ baseUrl: this.baseUrl, auth: token, log: this.#octokitLog() });
  }

  #octokitLog() {
    const log = this.#logger;
    return {
      debug: (message: string) => log.debug({ octokit: true }, message),
      info: (message: string) => log.debug({ octokit: true }, message),
      warn: (message: string) => log.warn({ octokit: true }, message),
      error: (message: string) => log.error({ octokit: true }, message),
    };
  }
}

/** What only the process holding the App key can do (the API): a worker's forge has no App. */
function appOnly(what: string): PullwrightError {
  return new PullwrightError('forge_failed', `GitHub: ${what} needs the App key, which only the API holds`);
}

function toPullRequest(repo: string, data: PullData): PullRequest {
  const merged = data.merged === true || Boolean(data.merged_at);
  return {
    number: data.number,
    url: data.html_url,
    repo,
    head: data.head.ref,
    base: data.base.ref,
    headSha: data.head.sha,
    ...(data.base.sha ? { baseSha: data.base.sha } : {}),
    title: data.title,
    body: data.body ?? '',
    state: merged ? 'merged' : data.state === 'open' ? 'open' : 'closed',
    ...(merged && data.merge_commit_sha ? { mergeSha: data.merge_commit_sha } : {}),
    ...(data.merged_at ? { mergedAt: data.merged_at } : {}),
  };
}
