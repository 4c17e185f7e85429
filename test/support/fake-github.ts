import { execFile } from 'node:child_process';
import { createHmac, createPublicKey, generateKeyPairSync, type KeyObject, randomBytes, randomUUID } from 'node:crypto';
import { chmod, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { verifyAppJwt } from './fake-github/app-jwt.ts';
import { gitDataRequest, isFastForward, restCommitJson } from './fake-github/git-data.ts';
import { PROTECT_DEFAULT_BRANCH_HOOK, serveGitCgi } from './fake-github/git-http-backend.ts';
import { FakeOAuthWebFlow } from './fake-github/oauth-web-flow.ts';
import {
  checkRunJson,
  deepMerge,
  examplePayload,
  issueJson,
  labelJson,
  type PayloadRepo,
  pullRequestJson,
  repositoryJson,
  userJson,
} from './fake-github/webhook-payloads.ts';

const run = promisify(execFile);

type Level = 'read' | 'write';
type Permissions = Record<string, Level>;
type Json = Record<string, unknown>;

/** What the app was granted at installation; a token may ask for a subset, never more. */
const APP_PERMISSIONS: Permissions = {
  contents: 'write',
  pull_requests: 'write',
  issues: 'write',
  checks: 'read',
  actions: 'read',
  metadata: 'read',
};

interface TokenRequest {
  installationId: number;
  jwtIss: string;
  repositories: string[] | undefined;
  permissions: Permissions | undefined;
}

interface IssuedToken {
  token: string;
  installationId: number;
  owner: string;
  /** Repository names (not full names) the token may touch. */
  repositories: string[];
  permissions: Permissions;
  expiresAt: number;
  revoked: boolean;
}

interface FakePull {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  mergeCommitSha: string | null;
  /** Frozen when the PR closes; live from the branch while open. */
  closedHeadSha?: string;
  author: string;
  updatedAt: string;
  mergedAt?: string;
}

interface FakeComment {
  id: number;
  user: string;
  body: string;
  createdAt: string;
  /** The bodies an edit (PATCH) replaced, oldest first: what the comment said in between. */
  history?: string[];
}

interface FakeReviewComment extends FakeComment {
  reviewId: number | null;
  path: string;
  line: number;
  commitId: string;
  inReplyTo?: number;
}

interface FakeIssue {
  number: number;
  title: string;
  body: string;
  author: string;
  state: 'open' | 'closed';
  labels: string[];
  assignees: string[];
}

interface FakeReaction {
  /** `issue:<n>` or `comment:<id>`. */
  target: string;
  content: string;
  user: string;
}

/** A check run as a CI app reports it for a commit. */
export interface FakeCheck {
  name: string;
  conclusion: 'success' | 'failure' | 'timed_out' | 'cancelled' | 'skipped';
  title?: string;
  summary?: string;
  log?: string;
  annotations?: { path: string; line: number; message: string }[];
}

interface StoredCheck extends FakeCheck {
  id: number;
  headSha: string;
  suiteId: number;
}

interface FakeReview {
  id: number;
  user: string;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED';
  body: string;
  commitId: string;
}

interface FakeRepo {
  owner: string;
  name: string;
  defaultBranch: string;
  installationId: number | undefined;
  collaborators: Map<string, 'admin' | 'write' | 'read'>;
  pulls: Map<number, FakePull>;
  nextNumber: number;
  issueComments: Map<number, FakeComment[]>;
  reviewComments: Map<number, FakeReviewComment[]>;
  reviews: Map<number, FakeReview[]>;
  issues: Map<number, FakeIssue>;
  reactions: FakeReaction[];
  checks: StoredCheck[];
  /** Branches whose protection requires signed commits: a PR into one merges only when every commit is verified. */
  signedBranches: Set<string>;
  /** An old GHES: the git-data endpoints answer 404 (publishing falls back to a push). */
  noGitData: boolean;
}

export interface Delivery {
  id: string;
  event: string;
  action: string;
  status: number;
  response: string;
  payload: string;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A GitHub Enterprise Server for tests: REST under `/api/v3` for exactly the calls
 * Pullwright makes (app JWT → installation tokens scoped by repository and permission,
 * pulls, comments, review replies, collaborator permission, token revocation) and git
 * smart HTTP through `git http-backend` that accepts only live installation tokens and
 * refuses force pushes and deletions of the default branch. It also plays GitHub's side
 * of webhooks: reviews, comments, merges and pushes are delivered signed to the app.
 */
export class FakeGitHub {
  readonly appId = '4242';
  readonly botLogin = 'pullwright[bot]';
  readonly privateKeyPem: string;
  readonly tokenRequests: TokenRequest[] = [];
  /** Every REST call: method, path and how it authenticated. */
  readonly calls: { method: string; path: string; auth: 'jwt' | 'token' | 'none' }[] = [];
  readonly deliveries: Delivery[] = [];
  /** Sign in with GitHub: register an OAuth client, say who is signed in to "the browser". */
  readonly oauth = new FakeOAuthWebFlow();
  url = '';
  root = '';
  tokenTtlMs = 60 * 60_000;
  #publicKey: KeyObject;
  #server: Server | undefined;
  #repos = new Map<string, FakeRepo>();
  #tokens = new Map<string, IssuedToken>();
  #installations = new Map<string, number>();
  /** What each installation's owner accepted, when less than the app asks for (by installation id). */
  #granted = new Map<number, Permissions>();
  #nextId = 1000;
  #webhook: { url: string; secret: string } | undefined;
  #pending = new Set<Promise<unknown>>();
  #pushOutage: { status: number; left: number } | undefined;
  /** Requests to start a push (`info/refs?service=git-receive-pack`) or to write git data (blobs, trees, commits, refs), answered or not. */
  pushAttempts = 0;
  /** Commits GitHub created itself (git-data API without a committer, merges): signed, `verification.verified`. */
  #verified = new Set<string>();

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    // PKCS#1, the format GitHub hands out when an app key is generated.
    this.privateKeyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    this.#publicKey = createPublicKey(publicKey.export({ type: 'spki', format: 'pem' }));
  }

  async start(): Promise<this> {
    this.root = await mkdtemp(path.join(os.tmpdir(), 'pw-fake-github-'));
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => {
        const status = err instanceof HttpError ? err.status : 500;
        if (!res.headersSent) this.#json(res, status, { message: (err as Error).message });
        else res.end();
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    const address = this.#server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    return this;
  }

  async stop(): Promise<void> {
    await this.settled();
    await new Promise<void>((resolve) => {
      this.#server?.closeAllConnections();
      this.#server?.close(() => resolve());
    });
    await rm(this.root, { recursive: true, force: true });
  }

  get apiUrl(): string {
    return `${this.url}/api/v3`;
  }

  /** Writes the app's private key to a file, for GITHUB_APP_PRIVATE_KEY given as a path. */
  async writePrivateKey(dir: string): Promise<string> {
    const file = path.join(dir, 'app.private-key.pem');
    await writeFile(file, this.privateKeyPem, { mode: 0o600 });
    return file;
  }

  /**
   * The installation on `owner` has accepted only these permissions: what GitHub does when the
   * app asks for a new one after it was installed, until the owner accepts it. Its tokens may
   * have no more; its installation (and the listing of installations) shows them.
   */
  grantInstallation(owner: string, permissions: Permissions): void {
    const id = this.#installations.get(owner);
    if (id === undefined) throw new Error(`no installation on ${owner}`);
    this.#granted.set(id, permissions);
  }

  #grantedTo(installationId: number): Permissions {
    return this.#granted.get(installationId) ?? APP_PERMISSIONS;
  }

  /** Branch protection's "Require signed commits" on `branch`: merging a PR with an unverified commit is refused. */
  requireSignedCommits(fullName: string, branch: string): void {
    this.#repo(fullName).signedBranches.add(branch);
  }

  /** The repository answers its git-data endpoints with 404, as an old GHES does. */
  withoutGitData(fullName: string): void {
    this.#repo(fullName).noGitData = true;
  }

  /** Whether GitHub would show `sha` as Verified: a commit it created (and signed) itself. */
  isVerified(sha: string): boolean {
    return this.#verified.has(sha);
  }

  /** A forge outage at publish: the next `count` pushes (or git-data writes) are answered `status` (Infinity: every one). */
  failPushes(status: number, count: number): void {
    this.#pushOutage = { status, left: count };
  }

  /** Where GitHub would deliver this app's webhooks. */
  setWebhook(url: string, secret: string): void {
    this.#webhook = { url, secret };
  }

  /** Resolves once every webhook triggered by the server itself (merges, pushes) has been delivered. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  async createRepository(
    fullName: string,
    options: { files?: Record<string, string>; fromDir?: string; defaultBranch?: string; installed?: boolean } = {},
  ): Promise<void> {
    const [owner, name] = fullName.split('/') as [string, string];
    const defaultBranch = options.defaultBranch ?? 'main';
    const dir = this.repoDir(fullName);
    await mkdir(dir, { recursive: true });
    await git(dir, ['init', '--bare', `--initial-branch=${defaultBranch}`]);
    await writeFile(path.join(dir, 'hooks', 'pre-receive'), PROTECT_DEFAULT_BRANCH_HOOK);
    await chmod(path.join(dir, 'hooks', 'pre-receive'), 0o755);
    const work = await mkdtemp(path.join(os.tmpdir(), 'pw-fake-seed-'));
    try {
      await git(work, ['init', `--initial-branch=${defaultBranch}`]);
      if (options.fromDir) await cp(options.fromDir, work, { recursive: true });
      for (const [file, content] of Object.entries(options.files ?? {})) {
        await mkdir(path.dirname(path.join(work, file)), { recursive: true });
        await writeFile(path.join(work, file), content);
      }
      await git(work, ['add', '--all']);
      await git(work, ['commit', '-m', 'Initial commit']);
      await git(work, ['push', dir, `${defaultBranch}:refs/heads/${defaultBranch}`]);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    let installationId: number | undefined;
    if (options.installed !== false) {
      installationId = this.#installations.get(owner) ?? this.#nextId++;
      this.#installations.set(owner, installationId);
    }
    this.#repos.set(fullName, {
      owner,
      name,
      defaultBranch,
      installationId,
      collaborators: new Map([[owner, 'admin']]),
      pulls: new Map(),
      nextNumber: 1,
      issueComments: new Map(),
      reviewComments: new Map(),
      reviews: new Map(),
      issues: new Map(),
      reactions: [],
      checks: [],
      signedBranches: new Set(),
      noGitData: false,
    });
  }

  repoDir(fullName: string): string {
    return path.join(this.root, `${fullName}.git`);
  }

  addCollaborator(fullName: string, login: string, permission: 'admin' | 'write' | 'read'): void {
    this.#repo(fullName).collaborators.set(login, permission);
  }

  async branchSha(fullName: string, branch: string): Promise<string | undefined> {
    const out = await git(this.repoDir(fullName), ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]).catch(
      () => '',
    );
    return out.trim() || undefined;
  }

  async showFile(fullName: string, ref: string, file: string): Promise<string> {
    return git(this.repoDir(fullName), ['show', `${ref}:${file}`]);
  }

  async commitMessage(fullName: string, ref: string): Promise<string> {
    return git(this.repoDir(fullName), ['log', '-1', '--format=%B', ref]);
  }

  pulls(fullName: string): FakePull[] {
    return [...this.#repo(fullName).pulls.values()];
  }

  async headSha(fullName: string, pull: FakePull): Promise<string> {
    return pull.closedHeadSha ?? (await this.branchSha(fullName, pull.head)) ?? '';
  }

  issueComments(fullName: string, number: number): FakeComment[] {
    return this.#repo(fullName).issueComments.get(number) ?? [];
  }

  issue(fullName: string, number: number): FakeIssue {
    const issue = this.#repo(fullName).issues.get(number);
    if (!issue) throw new Error(`no issue #${number}`);
    return issue;
  }

  reactions(fullName: string): FakeReaction[] {
    return this.#repo(fullName).reactions;
  }

  reviewComments(fullName: string, number: number): FakeReviewComment[] {
    return this.#repo(fullName).reviewComments.get(number) ?? [];
  }

  /** Live, unrevoked tokens (for asserting revocation). */
  liveTokens(): string[] {
    return [...this.#tokens.values()].filter((t) => !t.revoked && t.expiresAt > Date.now()).map((t) => t.token);
  }

  allTokens(): string[] {
    return [...this.#tokens.keys()];
  }

  // ---- a person's actions on GitHub, each delivered as its webhook ----

  /** A reviewer submits a review (with inline comments); GitHub sends `pull_request_review.submitted`. */
  async submitReview(
    fullName: string,
    number: number,
    review: {
      user: string;
      state: FakeReview['state'];
      body?: string;
      commitId?: string;
      comments?: { path: string; line: number; body: string }[];
    },
  ): Promise<Delivery> {
    const repo = this.#repo(fullName);
    const pull = this.#pull(repo, number);
    const commitId = review.commitId ?? (await this.headSha(fullName, pull));
    const stored: FakeReview = {
      id: this.#nextId++,
      user: review.user,
      state: review.state,
      body: review.body ?? '',
      commitId,
    };
    push(repo.reviews, number, stored);
    for (const c of review.comments ?? []) {
      push(repo.reviewComments, number, {
        id: this.#nextId++,
        reviewId: stored.id,
        user: review.user,
        body: c.body,
        path: c.path,
        line: c.line,
        commitId,
        createdAt: new Date().toISOString(),
      });
    }
    const payload = deepMerge(examplePayload('pull_request_review', 'submitted'), {
      review: {
        id: stored.id,
        user: userJson(review.user),
        body: review.body ?? null,
        commit_id: commitId,
        state: review.state.toLowerCase(),
        submitted_at: new Date().toISOString(),
      },
      pull_request: await this.#pullJson(repo, pull),
      repository: repositoryJson(this.#payloadRepo(repo)),
      sender: userJson(review.user),
      installation: { id: repo.installationId ?? 0 },
    });
    return this.deliver('pull_request_review', payload);
  }

  /** A single inline comment outside a review submission; GitHub sends `pull_request_review_comment.created`. */
  async addReviewComment(
    fullName: string,
    number: number,
    comment: { user: string; path: string; line: number; body: string },
  ): Promise<Delivery> {
    const repo = this.#repo(fullName);
    const pull = this.#pull(repo, number);
    const stored: FakeReviewComment = {
      id: this.#nextId++,
      reviewId: this.#nextId++,
      ...comment,
      commitId: await this.headSha(fullName, pull),
      createdAt: new Date().toISOString(),
    };
    push(repo.reviewComments, number, stored);
    const payload = deepMerge(examplePayload('pull_request_review_comment', 'created'), {
      comment: this.#reviewCommentJson(repo, number, stored),
      pull_request: await this.#pullJson(repo, pull),
      repository: repositoryJson(this.#payloadRepo(repo)),
      sender: userJson(comment.user),
      installation: { id: repo.installationId ?? 0 },
    });
    return this.deliver('pull_request_review_comment', payload);
  }

  /** Someone opens a pull request from a branch they pushed (no webhook: nothing in these tests listens for it). */
  openPull(fullName: string, pull: { user: string; head: string; base: string; title: string; body: string }): number {
    const repo = this.#repo(fullName);
    const number = repo.nextNumber++;
    repo.pulls.set(number, {
      number,
      title: pull.title,
      body: pull.body,
      head: pull.head,
      base: pull.base,
      draft: false,
      state: 'open',
      merged: false,
      mergeCommitSha: null,
      author: pull.user,
      updatedAt: new Date().toISOString(),
    });
    return number;
  }

  /** Someone opens an issue; GitHub sends `issues.opened`. Returns the issue's number. */
  async openIssue(
    fullName: string,
    issue: { user: string; title: string; body?: string; labels?: string[] },
  ): Promise<number> {
    const repo = this.#repo(fullName);
    const stored: FakeIssue = {
      number: repo.nextNumber++,
      title: issue.title,
      body: issue.body ?? '',
      author: issue.user,
      state: 'open',
      labels: issue.labels ?? [],
      assignees: [],
    };
    repo.issues.set(stored.number, stored);
    if (this.#webhook) await this.#issueEvent(repo, stored, 'opened', issue.user);
    return stored.number;
  }

  /** Someone adds a label; GitHub sends `issues.labeled` with the label. */
  labelIssue(fullName: string, number: number, label: string, user: string): Promise<Delivery> {
    const repo = this.#repo(fullName);
    const issue = this.#issue(repo, number);
    if (!issue.labels.includes(label)) issue.labels.push(label);
    return this.#issueEvent(repo, issue, 'labeled', user, { label: labelJson(label) });
  }

  unlabelIssue(fullName: string, number: number, label: string, user: string): Promise<Delivery> {
    const repo = this.#repo(fullName);
    const issue = this.#issue(repo, number);
    issue.labels = issue.labels.filter((l) => l !== label);
    return this.#issueEvent(repo, issue, 'unlabeled', user, { label: labelJson(label) });
  }

  /** Someone assigns `assignee` (the app's bot user, say); GitHub sends `issues.assigned`. */
  assignIssue(fullName: string, number: number, assignee: string, user: string): Promise<Delivery> {
    const repo = this.#repo(fullName);
    const issue = this.#issue(repo, number);
    if (!issue.assignees.includes(assignee)) issue.assignees.push(assignee);
    return this.#issueEvent(repo, issue, 'assigned', user, {
      assignee: userJson(assignee, assignee.endsWith('[bot]') ? 'Bot' : 'User'),
    });
  }

  closeIssue(fullName: string, number: number, user: string): Promise<Delivery> {
    const repo = this.#repo(fullName);
    const issue = this.#issue(repo, number);
    issue.state = 'closed';
    return this.#issueEvent(repo, issue, 'closed', user);
  }

  #issueEvent(repo: FakeRepo, issue: FakeIssue, action: string, user: string, extra: Json = {}): Promise<Delivery> {
    // The examples have no `closed`; it has the shape of `reopened` (the issue's state says which).
    const payload = deepMerge(examplePayload('issues', action === 'closed' ? 'reopened' : action), {
      ...extra,
      action,
      issue: issueJson(this.#payloadRepo(repo), issue),
      repository: repositoryJson(this.#payloadRepo(repo)),
      sender: userJson(user, user.endsWith('[bot]') ? 'Bot' : 'User'),
      installation: { id: repo.installationId ?? 0 },
    });
    // The examples carry fields of their own action (a milestone, a label): only ours count.
    if (action !== 'labeled' && action !== 'unlabeled') delete payload.label;
    if (action !== 'assigned') delete payload.assignee;
    return this.deliver('issues', payload);
  }

  /**
   * A conversation comment on a PR or an issue; GitHub sends `issue_comment.created`, with
   * `issue.pull_request` set only for a PR.
   */
  async addIssueComment(fullName: string, number: number, comment: { user: string; body: string }): Promise<Delivery> {
    const repo = this.#repo(fullName);
    const stored: FakeComment = { id: this.#nextId++, ...comment, createdAt: new Date().toISOString() };
    const onIssue = repo.issues.get(number);
    if (!onIssue) this.#pull(repo, number);
    push(repo.issueComments, number, stored);
    const pull = repo.pulls.get(number);
    const payload = deepMerge(examplePayload('issue_comment', 'created'), {
      issue: onIssue
        ? issueJson(this.#payloadRepo(repo), onIssue)
        : {
            number,
            title: pull!.title,
            state: pull!.state,
            user: userJson(pull!.author, 'Bot'),
            pull_request: { url: `${this.apiUrl}/repos/${fullName}/pulls/${number}` },
          },
      comment: this.#commentJson(repo, number, stored),
      repository: repositoryJson(this.#payloadRepo(repo)),
      sender: userJson(comment.user, comment.user.endsWith('[bot]') ? 'Bot' : 'User'),
      installation: { id: repo.installationId ?? 0 },
    });
    // An issue's comment has no pull_request link; the example's own must not survive the merge.
    if (onIssue) delete (payload.issue as Json).pull_request;
    return this.deliver('issue_comment', payload);
  }

  /** Someone pushes a commit to a branch directly; open PRs on it get `pull_request.synchronize`. */
  async commitToBranch(
    fullName: string,
    branch: string,
    files: Record<string, string>,
    options: { user?: string; message?: string } = {},
  ): Promise<string> {
    const dir = this.repoDir(fullName);
    const work = await mkdtemp(path.join(os.tmpdir(), 'pw-fake-push-'));
    const before = await this.#openHeads(fullName);
    try {
      await git(work, ['clone', '-q', '--branch', branch, dir, '.']);
      for (const [file, content] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(work, file)), { recursive: true });
        await writeFile(path.join(work, file), content);
      }
      await git(work, ['add', '--all']);
      await git(work, ['commit', '-m', options.message ?? 'A commit from a person']);
      await git(work, ['push', '-q', 'origin', branch]);
      const sha = (await git(work, ['rev-parse', 'HEAD'])).trim();
      await this.#emitSynchronize(fullName, before, options.user ?? 'someone');
      return sha;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /**
   * A CI app reports finished check runs for `sha`; for a commit of an open PR, GitHub sends
   * a `check_run.completed` per run, then `check_suite.completed` and `workflow_run.completed`
   * for the suite (red when any run is). `deliver: false` records them silently (the base's CI).
   */
  async reportChecks(
    fullName: string,
    sha: string,
    checks: FakeCheck[],
    options: { deliver?: boolean } = {},
  ): Promise<Delivery[]> {
    const repo = this.#repo(fullName);
    const suiteId = this.#nextId++;
    const stored = checks.map((c) => ({ ...c, id: this.#nextId++, headSha: sha, suiteId }));
    repo.checks.push(...stored);
    if (options.deliver === false) return [];
    const branch = await this.#branchAt(fullName, sha);
    const pulls = await this.#pullsAt(repo, sha);
    const base = this.#payloadRepo(repo);
    const common = {
      repository: repositoryJson(base),
      sender: userJson('github-actions[bot]', 'Bot'),
      installation: { id: repo.installationId ?? 0 },
    };
    const out: Delivery[] = [];
    for (const run of stored) {
      const payload = deepMerge(examplePayload('check_run', 'completed'), {
        ...common,
        check_run: checkRunJson(base, this.#runPayload(run), branch, pulls),
      });
      out.push(await this.deliver('check_run', payload));
    }
    const red = stored.find((r) => r.conclusion === 'failure' || r.conclusion === 'timed_out');
    const conclusion = red ? red.conclusion : 'success';
    out.push(
      await this.deliver(
        'check_suite',
        deepMerge(examplePayload('check_suite', 'completed'), {
          ...common,
          check_suite: {
            id: suiteId,
            head_branch: branch,
            head_sha: sha,
            status: 'completed',
            conclusion,
            url: `${this.apiUrl}/repos/${fullName}/check-suites/${suiteId}`,
            pull_requests: pulls,
          },
        }),
      ),
    );
    out.push(
      await this.deliver(
        'workflow_run',
        deepMerge(examplePayload('workflow_run', 'completed'), {
          ...common,
          workflow_run: {
            id: suiteId,
            check_suite_id: suiteId,
            head_branch: branch,
            head_sha: sha,
            status: 'completed',
            conclusion,
            html_url: `${this.url}/${fullName}/actions/runs/${suiteId}`,
            pull_requests: pulls,
          },
        }),
      ),
    );
    return out;
  }

  #runPayload(run: StoredCheck) {
    return {
      id: run.id,
      name: run.name,
      headSha: run.headSha,
      conclusion: run.conclusion,
      title: run.title ?? `${run.name} ${run.conclusion}`,
      summary: run.summary ?? '',
      suiteId: run.suiteId,
    };
  }

  async #branchAt(fullName: string, sha: string): Promise<string | null> {
    const out = await git(this.repoDir(fullName), [
      'for-each-ref',
      '--points-at',
      sha,
      '--format=%(refname:short)',
      'refs/heads',
    ]);
    return out.split('\n').find(Boolean) ?? null;
  }

  /** The PR references GitHub puts in CI payloads: open PRs whose head is `sha`. */
  async #pullsAt(repo: FakeRepo, sha: string): Promise<Json[]> {
    const fullName = `${repo.owner}/${repo.name}`;
    const out: Json[] = [];
    for (const p of repo.pulls.values()) {
      if (p.state !== 'open' || (await this.headSha(fullName, p)) !== sha) continue;
      const json = await this.#pullJson(repo, p);
      out.push({ url: json.url, id: p.number, number: p.number, head: json.head, base: json.base });
    }
    return out;
  }

  /** Signs and POSTs a webhook delivery the way GitHub does (X-Hub-Signature-256 over the raw body). */
  async deliver(event: string, payload: Json, id: string = randomUUID()): Promise<Delivery> {
    if (!this.#webhook) throw new Error('no webhook configured');
    const body = JSON.stringify(payload);
    return this.#post(event, String(payload.action ?? ''), body, id);
  }

  /** GitHub's "Redeliver" button: the same delivery id and body, signed again. */
  async redeliver(id: string): Promise<Delivery> {
    const first = this.deliveries.find((d) => d.id === id);
    if (!first) throw new Error(`no delivery ${id}`);
    return this.#post(first.event, first.action, first.payload, id);
  }

  signature(body: string): string {
    return `sha256=${createHmac('sha256', this.#webhook?.secret ?? '')
      .update(body)
      .digest('hex')}`;
  }

  async #post(event: string, action: string, body: string, id: string): Promise<Delivery> {
    const res = await fetch(this.#webhook!.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'GitHub-Hookshot/fake',
        'x-github-event': event,
        'x-github-delivery': id,
        'x-github-hook-installation-target-type': 'integration',
        'x-hub-signature-256': this.signature(body),
      },
      body,
    });
    const delivery = { id, event, action, status: res.status, response: await res.text(), payload: body };
    this.deliveries.push(delivery);
    return delivery;
  }

  #background(work: Promise<unknown>): void {
    const tracked = work.catch(() => undefined).finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
  }

  // ---- HTTP ----

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname.startsWith('/api/v3/')) return this.#rest(req, res, url);
    const logs = /^\/_job-logs\/([^/]+)\/([^/]+)\/(\d+)$/.exec(url.pathname);
    if (logs) {
      const run = this.#repo(`${logs[1]}/${logs[2]}`).checks.find((c) => c.id === Number(logs[3]));
      if (!run?.log) throw new HttpError(404, 'Not Found');
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(run.log);
      return;
    }
    if (await this.oauth.handle(req, res, url)) return;
    const gitPath = /^\/([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+?)\.git(\/.*)$/.exec(url.pathname);
    if (gitPath) return this.#git(req, res, url, `${gitPath[1]}/${gitPath[2]}`);
    throw new HttpError(404, 'Not Found');
  }

  async #git(req: IncomingMessage, res: ServerResponse, url: URL, fullName: string): Promise<void> {
    const repo = this.#repos.get(fullName);
    const write = url.searchParams.get('service') === 'git-receive-pack' || url.pathname.endsWith('/git-receive-pack');
    if (write && req.method === 'GET') {
      this.pushAttempts++;
      const outage = this.#pushOutage;
      if (outage && outage.left > 0) {
        outage.left--;
        res.writeHead(outage.status, { 'content-type': 'text/plain' });
        res.end('Service Unavailable');
        return;
      }
    }
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    const password = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').slice(1).join(':') : '';
    const token = this.#tokens.get(password);
    if (!token || token.revoked || token.expiresAt <= Date.now()) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="GitHub"', 'content-type': 'text/plain' });
      res.end('Invalid username or token.');
      return;
    }
    if (!repo || !this.#covers(token, repo)) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Repository not found.');
      return;
    }
    const needed: Level = write ? 'write' : 'read';
    if (!allows(token.permissions.contents, needed)) {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end(`Permission to ${fullName}.git denied to ${this.botLogin}.`);
      return;
    }
    const before = write && req.method === 'POST' ? await this.#openHeads(fullName) : undefined;
    await serveGitCgi(req, res, {
      projectRoot: this.root,
      pathInfo: url.pathname,
      query: url.search.replace(/^\?/, ''),
      remoteUser: this.botLogin,
    });
    if (before) this.#background(this.#emitSynchronize(fullName, before, this.botLogin));
  }

  async #rest(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const route = url.pathname.slice('/api/v3'.length);
    const method = req.method ?? 'GET';
    const body = method === 'GET' || method === 'DELETE' ? {} : await readJson(req);
    const credential = /^(?:token|bearer) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const isJwt = credential !== undefined && credential.split('.').length === 3;
    this.calls.push({ method, path: route, auth: credential === undefined ? 'none' : isJwt ? 'jwt' : 'token' });

    if (route === '/user' && method === 'GET') {
      const login = this.oauth.loginFor(credential);
      if (!login) throw new HttpError(401, 'Bad credentials');
      return this.#json(res, 200, userJson(login));
    }
    let m: RegExpExecArray | null;
    m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(route);
    if (m && method === 'POST') {
      const iss = this.#requireJwt(credential);
      return this.#json(res, 201, this.#mintToken(Number(m[1]), iss, body));
    }
    if (route === '/app' && method === 'GET') {
      this.#requireJwt(credential);
      return this.#json(res, 200, {
        id: Number(this.appId),
        slug: this.botLogin.replace(/\[bot\]$/, ''),
        name: 'Pullwright',
        permissions: APP_PERMISSIONS,
      });
    }
    if (route === '/app/installations' && method === 'GET') {
      this.#requireJwt(credential);
      return this.#json(
        res,
        200,
        [...this.#installations].map(([owner, id]) => ({
          id,
          account: userJson(owner),
          app_id: Number(this.appId),
          repository_selection: 'all',
          permissions: this.#grantedTo(id),
        })),
      );
    }
    if (route === '/installation/token' && method === 'DELETE') {
      const token = this.#requireToken(credential);
      token.revoked = true;
      res.writeHead(204).end();
      return;
    }
    m = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(route);
    if (!m) throw new HttpError(404, 'Not Found');
    const fullName = `${m[1]}/${m[2]}`;
    const rest = m[3] ?? '';
    if (rest === '/installation' && method === 'GET') {
      this.#requireJwt(credential);
      const repo = this.#repos.get(fullName);
      if (!repo?.installationId) throw new HttpError(404, 'Not Found');
      return this.#json(res, 200, {
        id: repo.installationId,
        app_id: Number(this.appId),
        app_slug: 'pullwright',
        account: userJson(repo.owner),
        repository_selection: 'all',
        permissions: this.#grantedTo(repo.installationId),
      });
    }
    const repo = this.#repos.get(fullName);
    const token = this.#requireToken(credential);
    if (!repo || !this.#covers(token, repo)) throw new HttpError(404, 'Not Found');
    const need = (permission: string, level: Level) => {
      if (!allows(token.permissions[permission], level))
        throw new HttpError(403, 'Resource not accessible by integration');
    };

    if (rest.startsWith('/git/')) {
      if (repo.noGitData) throw new HttpError(404, 'Not Found');
      const write = method !== 'GET';
      need('contents', write ? 'write' : 'read');
      if (write) {
        this.pushAttempts++;
        const outage = this.#pushOutage;
        if (outage && outage.left > 0) {
          outage.left--;
          throw new HttpError(outage.status, 'Service Unavailable');
        }
      }
      const ref = /^\/git\/refs(?:\/(.+))?$/.exec(rest);
      // Octokit sends `{ref}` encoded: `heads%2Fagent%2F…`.
      const name = ref?.[1] === undefined ? undefined : decodeURIComponent(ref[1]);
      if (ref) return this.#json(res, ...(await this.#moveRef(repo, method, name, body as Json)));
      const answer = await gitDataRequest(this.repoDir(fullName), rest, method, body as Json, this.#verified);
      if (answer) return this.#json(res, answer.status, answer.json);
    }
    m = /^\/commits\/([0-9a-f]{40})$/.exec(rest);
    if (m && method === 'GET') {
      need('contents', 'read');
      return this.#json(res, 200, await restCommitJson(this.repoDir(fullName), m[1]!, this.#verified));
    }
    if (rest === '/pulls' && method === 'GET') {
      need('pull_requests', 'read');
      const state = url.searchParams.get('state') ?? 'open';
      const head = url.searchParams.get('head');
      const base = url.searchParams.get('base');
      const pulls = [...repo.pulls.values()].filter(
        (p) =>
          (state === 'all' || p.state === state) &&
          (!head || `${repo.owner}:${p.head}` === head) &&
          (!base || p.base === base),
      );
      // Newest first by creation (GitHub's default), or by last update with `sort=updated`.
      const key = (p: FakePull) => (url.searchParams.get('sort') === 'updated' ? Date.parse(p.updatedAt) : p.number);
      pulls.sort((a, b) => key(b) - key(a) || b.number - a.number);
      return this.#json(res, 200, await Promise.all(pulls.map((p) => this.#pullJson(repo, p))));
    }
    if (rest === '/pulls' && method === 'POST') {
      need('pull_requests', 'write');
      const { title, head, base, body: text, draft } = body as Record<string, unknown>;
      if (typeof title !== 'string' || typeof head !== 'string' || typeof base !== 'string')
        throw new HttpError(422, 'Validation Failed');
      if (!(await this.branchSha(fullName, head)) || !(await this.branchSha(fullName, base)))
        throw new HttpError(422, 'Validation Failed: head or base does not exist');
      if ([...repo.pulls.values()].some((p) => p.state === 'open' && p.head === head))
        throw new HttpError(422, `A pull request already exists for ${repo.owner}:${head}.`);
      const pull: FakePull = {
        number: repo.nextNumber++,
        title,
        body: typeof text === 'string' ? text : '',
        head,
        base,
        draft: draft === true,
        state: 'open',
        merged: false,
        mergeCommitSha: null,
        author: this.botLogin,
        updatedAt: new Date().toISOString(),
      };
      repo.pulls.set(pull.number, pull);
      return this.#json(res, 201, await this.#pullJson(repo, pull));
    }
    m = /^\/pulls\/(\d+)$/.exec(rest);
    if (m) {
      const pull = this.#pull(repo, Number(m[1]));
      if (method === 'GET') {
        need('pull_requests', 'read');
        if (/diff/.test(req.headers.accept ?? '')) {
          const head = await this.headSha(fullName, pull);
          const base = pull.merged ? `${pull.mergeCommitSha}^1` : pull.base;
          const diff = await git(this.repoDir(fullName), ['diff', '--no-color', `${base}...${head}`]);
          res.writeHead(200, { 'content-type': 'application/vnd.github.diff; charset=utf-8' });
          res.end(diff);
          return;
        }
        return this.#json(res, 200, await this.#pullJson(repo, pull));
      }
      if (method === 'PATCH') {
        need('pull_requests', 'write');
        const patch = body as { state?: string; title?: string; body?: string };
        pull.updatedAt = new Date().toISOString();
        if (patch.title) pull.title = patch.title;
        if (typeof patch.body === 'string') pull.body = patch.body;
        if (patch.state === 'closed' && pull.state === 'open') {
          pull.closedHeadSha = await this.headSha(fullName, pull);
          pull.state = 'closed';
        }
        return this.#json(res, 200, await this.#pullJson(repo, pull));
      }
    }
    m = /^\/pulls\/(\d+)\/merge$/.exec(rest);
    if (m && method === 'PUT') {
      need('contents', 'write');
      need('pull_requests', 'write');
      const pull = this.#pull(repo, Number(m[1]));
      return this.#json(res, 200, await this.#merge(repo, pull, body as Record<string, unknown>));
    }
    m = /^\/issues\/(\d+)\/comments$/.exec(rest);
    if (m) {
      const number = Number(m[1]);
      if (method === 'GET') {
        need('issues', 'read');
        const list = repo.issueComments.get(number) ?? [];
        return this.#json(
          res,
          200,
          list.map((c) => this.#commentJson(repo, number, c)),
        );
      }
      if (method === 'POST') {
        need('issues', 'write');
        if (!repo.issues.has(number)) this.#pull(repo, number);
        const comment: FakeComment = {
          id: this.#nextId++,
          user: this.botLogin,
          body: String((body as { body?: unknown }).body ?? ''),
          createdAt: new Date().toISOString(),
        };
        push(repo.issueComments, number, comment);
        return this.#json(res, 201, this.#commentJson(repo, number, comment));
      }
    }
    m = /^\/issues\/comments\/(\d+)$/.exec(rest);
    if (m && method === 'PATCH') {
      need('issues', 'write');
      const id = Number(m[1]);
      for (const [number, list] of repo.issueComments) {
        const comment = list.find((c) => c.id === id);
        if (!comment) continue;
        if (comment.user !== this.botLogin) throw new HttpError(403, 'Resource not accessible by integration');
        comment.history = [...(comment.history ?? []), comment.body];
        comment.body = String((body as { body?: unknown }).body ?? '');
        return this.#json(res, 200, this.#commentJson(repo, number, comment));
      }
      throw new HttpError(404, 'Not Found');
    }
    m = /^\/pulls\/(\d+)\/comments$/.exec(rest);
    if (m && method === 'GET') {
      need('pull_requests', 'read');
      const number = Number(m[1]);
      return this.#json(
        res,
        200,
        (repo.reviewComments.get(number) ?? []).map((c) => this.#reviewCommentJson(repo, number, c)),
      );
    }
    m = /^\/pulls\/(\d+)\/reviews\/(\d+)\/comments$/.exec(rest);
    if (m && method === 'GET') {
      need('pull_requests', 'read');
      const number = Number(m[1]);
      const reviewId = Number(m[2]);
      return this.#json(
        res,
        200,
        (repo.reviewComments.get(number) ?? [])
          .filter((c) => c.reviewId === reviewId)
          .map((c) => this.#reviewCommentJson(repo, number, c)),
      );
    }
    m = /^\/pulls\/(\d+)\/comments\/(\d+)\/replies$/.exec(rest);
    if (m && method === 'POST') {
      need('pull_requests', 'write');
      const number = Number(m[1]);
      const parent = (repo.reviewComments.get(number) ?? []).find((c) => c.id === Number(m![2]));
      if (!parent) throw new HttpError(404, 'Not Found');
      const reply: FakeReviewComment = {
        id: this.#nextId++,
        reviewId: this.#nextId++,
        user: this.botLogin,
        body: String((body as { body?: unknown }).body ?? ''),
        path: parent.path,
        line: parent.line,
        commitId: parent.commitId,
        inReplyTo: parent.inReplyTo ?? parent.id,
        createdAt: new Date().toISOString(),
      };
      push(repo.reviewComments, number, reply);
      return this.#json(res, 201, this.#reviewCommentJson(repo, number, reply));
    }
    m = /^\/issues\/(?:(\d+)|comments\/(\d+))\/reactions$/.exec(rest);
    if (m && method === 'POST') {
      need('issues', 'write');
      const content = String((body as { content?: unknown }).content ?? '');
      if (!['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes'].includes(content))
        throw new HttpError(422, 'Validation Failed');
      if (m[1] && !repo.issues.has(Number(m[1]))) this.#pull(repo, Number(m[1]));
      if (m[2] && ![...repo.issueComments.values()].flat().some((c) => c.id === Number(m![2])))
        throw new HttpError(404, 'Not Found');
      const reaction = { target: m[1] ? `issue:${m[1]}` : `comment:${m[2]}`, content, user: this.botLogin };
      repo.reactions.push(reaction);
      return this.#json(res, 201, { id: this.#nextId++, content, user: userJson(this.botLogin, 'Bot') });
    }
    m = /^\/commits\/([^/]+)\/check-runs$/.exec(rest);
    if (m && method === 'GET') {
      need('checks', 'read');
      const sha = m[1]!;
      const runs = repo.checks.filter((c) => c.headSha === sha);
      const base = this.#payloadRepo(repo);
      const branch = await this.#branchAt(fullName, sha);
      return this.#json(res, 200, {
        total_count: runs.length,
        check_runs: runs.map((r) => checkRunJson(base, this.#runPayload(r), branch, [])),
      });
    }
    m = /^\/check-runs\/(\d+)\/annotations$/.exec(rest);
    if (m && method === 'GET') {
      need('checks', 'read');
      const run = repo.checks.find((c) => c.id === Number(m![1]));
      if (!run) throw new HttpError(404, 'Not Found');
      return this.#json(
        res,
        200,
        (run.annotations ?? []).map((a) => ({
          path: a.path,
          start_line: a.line,
          end_line: a.line,
          annotation_level: 'failure',
          title: null,
          message: a.message,
          raw_details: null,
          blob_href: `${this.url}/${fullName}/blob/${run.headSha}/${a.path}`,
        })),
      );
    }
    m = /^\/actions\/jobs\/(\d+)\/logs$/.exec(rest);
    if (m && method === 'GET') {
      need('actions', 'read');
      const run = repo.checks.find((c) => c.id === Number(m![1]));
      if (!run?.log) throw new HttpError(404, 'Not Found');
      // GitHub answers with a redirect to a short-lived download URL.
      res.writeHead(302, { location: `${this.url}/_job-logs/${fullName}/${run.id}` });
      res.end();
      return;
    }
    m = /^\/issues\/(\d+)$/.exec(rest);
    if (m && method === 'GET') {
      need('issues', 'read');
      const issue = repo.issues.get(Number(m[1]));
      if (!issue) throw new HttpError(404, 'Not Found');
      return this.#json(res, 200, issueJson(this.#payloadRepo(repo), issue));
    }
    m = /^\/contents\/(.+)$/.exec(rest);
    if (m && method === 'GET') {
      need('contents', 'read');
      const ref = url.searchParams.get('ref') ?? 'HEAD';
      const text = await this.showFile(fullName, ref, decodeURIComponent(m[1]!)).catch(() => undefined);
      if (text === undefined) throw new HttpError(404, 'Not Found');
      if (/raw/.test(req.headers.accept ?? '')) {
        res.writeHead(200, { 'content-type': 'application/vnd.github.raw; charset=utf-8' });
        res.end(text);
        return;
      }
      return this.#json(res, 200, { type: 'file', encoding: 'base64', content: Buffer.from(text).toString('base64') });
    }
    m = /^\/collaborators\/([^/]+)\/permission$/.exec(rest);
    if (m && method === 'GET') {
      need('metadata', 'read');
      const login = decodeURIComponent(m[1]!);
      // A public repository: everyone who is not a collaborator can read.
      const permission = repo.collaborators.get(login) ?? 'read';
      return this.#json(res, 200, { permission, role_name: permission, user: userJson(login) });
    }
    throw new HttpError(404, `Not Found: ${method} ${route}`);
  }

  #requireJwt(credential: string | undefined): string {
    if (!credential) throw new HttpError(401, 'A JSON web token could not be decoded');
    const result = verifyAppJwt(credential, this.#publicKey, this.appId);
    if (!result.ok) throw new HttpError(401, `A JSON web token could not be decoded: ${result.reason}`);
    return result.claims.iss;
  }

  #requireToken(credential: string | undefined): IssuedToken {
    const token = credential ? this.#tokens.get(credential) : undefined;
    if (!token || token.revoked || token.expiresAt <= Date.now()) throw new HttpError(401, 'Bad credentials');
    return token;
  }

  #mintToken(installationId: number, iss: string, body: unknown): Json {
    const req = body as { repositories?: string[]; permissions?: Permissions };
    this.tokenRequests.push({
      installationId,
      jwtIss: iss,
      repositories: req.repositories,
      permissions: req.permissions,
    });
    const owner = [...this.#installations].find(([, id]) => id === installationId)?.[0];
    if (!owner) throw new HttpError(404, 'Not Found');
    const installed = [...this.#repos.values()].filter((r) => r.installationId === installationId).map((r) => r.name);
    const repositories = req.repositories ?? installed;
    for (const name of repositories) {
      if (!installed.includes(name))
        throw new HttpError(
          422,
          `There is at least one repository that does not exist or is not accessible to the parent installation.`,
        );
    }
    // Like GitHub: metadata read comes with every token, whatever else was asked for.
    const permissions: Permissions = { ...(req.permissions ?? APP_PERMISSIONS), metadata: 'read' };
    const granted = this.#grantedTo(installationId);
    const refused = Object.entries(permissions).filter(([name, level]) => !allows(granted[name], level));
    if (refused.length > 0)
      throw new HttpError(
        422,
        `The permissions requested are not granted to this installation: ${refused.map(([n, l]) => `${n}=${l}`).join(', ')}`,
      );
    const token: IssuedToken = {
      // The shape of a real installation token, so pattern-based redaction is exercised too.
      token: `ghs_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x').slice(0, 36)}`,
      installationId,
      owner,
      repositories,
      permissions,
      expiresAt: Date.now() + this.tokenTtlMs,
      revoked: false,
    };
    this.#tokens.set(token.token, token);
    return {
      token: token.token,
      expires_at: new Date(token.expiresAt).toISOString().replace(/\.\d+Z$/, 'Z'),
      permissions,
      repository_selection: req.repositories ? 'selected' : 'all',
      repositories: repositories.map((name) => ({
        id: this.#repoNumericId(owner, name),
        name,
        full_name: `${owner}/${name}`,
      })),
    };
  }

  #repoNumericId(owner: string, name: string): number {
    return [...`${owner}/${name}`].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  }

  #covers(token: IssuedToken, repo: FakeRepo): boolean {
    return repo.installationId === token.installationId && token.repositories.includes(repo.name);
  }

  async #merge(
    repo: FakeRepo,
    pull: FakePull,
    body: Record<string, unknown>,
    options: { announce: boolean } = { announce: true },
  ): Promise<Json> {
    const fullName = `${repo.owner}/${repo.name}`;
    if (pull.state !== 'open') throw new HttpError(405, 'Pull Request is not mergeable');
    const head = await this.headSha(fullName, pull);
    if (typeof body.sha === 'string' && body.sha !== head)
      throw new HttpError(409, 'Head branch was modified. Review and try the merge again.');
    const dir = this.repoDir(fullName);
    const base = await this.branchSha(fullName, pull.base);
    if (!base) throw new HttpError(422, 'Base branch is gone');
    let tree: string;
    try {
      tree = (await git(dir, ['merge-tree', '--write-tree', base, head])).split('\n')[0]!.trim();
    } catch {
      throw new HttpError(405, 'Pull Request is not mergeable');
    }
    if (repo.signedBranches.has(pull.base)) {
      const commits = (await git(dir, ['rev-list', `${base}..${head}`])).split('\n').filter(Boolean);
      if (commits.some((c) => !this.#verified.has(c)))
        throw new HttpError(405, 'Base branch requires signed commits: commits must have verified signatures.');
    }
    const title = typeof body.commit_title === 'string' ? body.commit_title : `Merge pull request #${pull.number}`;
    const message = typeof body.commit_message === 'string' ? `${title}\n\n${body.commit_message}` : title;
    const sha = (await git(dir, ['commit-tree', tree, '-p', base, '-p', head, '-m', message])).trim();
    await git(dir, ['update-ref', `refs/heads/${pull.base}`, sha, base]);
    // GitHub signs the merge commits it makes.
    this.#verified.add(sha);
    const now = new Date().toISOString();
    Object.assign(pull, {
      state: 'closed',
      merged: true,
      mergeCommitSha: sha,
      closedHeadSha: head,
      updatedAt: now,
      mergedAt: now,
    });
    if (options.announce && this.#webhook) this.#background(this.#emitClosed(repo, pull, this.botLogin));
    return { sha, merged: true, message: 'Pull Request successfully merged' };
  }

  /** Someone closes (or merges, with `merge`) the PR in the web UI. */
  async closePull(
    fullName: string,
    number: number,
    user: string,
    options: { merge?: boolean } = {},
  ): Promise<Delivery> {
    const repo = this.#repo(fullName);
    const pull = this.#pull(repo, number);
    if (options.merge) {
      await this.#merge(repo, pull, {}, { announce: false });
    } else {
      pull.closedHeadSha = await this.headSha(fullName, pull);
      pull.state = 'closed';
      pull.updatedAt = new Date().toISOString();
    }
    return this.#emitClosed(repo, pull, user);
  }

  async #emitClosed(repo: FakeRepo, pull: FakePull, user: string): Promise<Delivery> {
    const payload = deepMerge(examplePayload('pull_request', 'closed'), {
      number: pull.number,
      pull_request: await this.#pullJson(repo, pull, pull.merged ? user : undefined),
      repository: repositoryJson(this.#payloadRepo(repo)),
      sender: userJson(user),
      installation: { id: repo.installationId ?? 0 },
    });
    return this.deliver('pull_request', payload);
  }

  /**
   * `POST /git/refs` creates a branch that does not exist; `PATCH /git/refs/heads/<b>` moves
   * one, only as a fast-forward unless `force` (never the default branch backwards). Open PRs
   * whose head moved get their `synchronize` delivery, as after a push.
   */
  async #moveRef(repo: FakeRepo, method: string, name: string | undefined, body: Json): Promise<[number, Json]> {
    const fullName = `${repo.owner}/${repo.name}`;
    const dir = this.repoDir(fullName);
    const sha = String(body.sha ?? '');
    const isCommit = await git(dir, ['cat-file', '-e', `${sha}^{commit}`]).then(
      () => true,
      () => false,
    );
    if (!/^[0-9a-f]{40}$/.test(sha) || !isCommit) throw new HttpError(422, 'Object does not exist');
    let ref: string;
    let old = '';
    if (method === 'POST' && name === undefined) {
      ref = String(body.ref ?? '');
      if (!/^refs\/heads\/[^\s]+$/.test(ref)) throw new HttpError(422, 'Reference name is not valid');
      if (await this.branchSha(fullName, ref.slice('refs/heads/'.length)))
        throw new HttpError(422, 'Reference already exists');
    } else if (method === 'PATCH' && name?.startsWith('heads/')) {
      ref = `refs/${name}`;
      const branch = name.slice('heads/'.length);
      const current = await this.branchSha(fullName, branch);
      if (!current) throw new HttpError(422, 'Reference does not exist');
      const forward = await isFastForward(dir, current, sha);
      if (!forward && (body.force !== true || branch === repo.defaultBranch))
        throw new HttpError(422, 'Update is not a fast forward');
      old = current;
    } else throw new HttpError(404, 'Not Found');
    const before = await this.#openHeads(fullName);
    await git(dir, ['update-ref', ref, sha, old]);
    this.#background(this.#emitSynchronize(fullName, before, this.botLogin));
    return [
      method === 'POST' ? 201 : 200,
      { ref, url: `/git/${ref}`, object: { type: 'commit', sha, url: `/git/commits/${sha}` } },
    ];
  }

  async #openHeads(fullName: string): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    for (const p of this.#repo(fullName).pulls.values()) {
      if (p.state === 'open') out.set(p.number, (await this.branchSha(fullName, p.head)) ?? '');
    }
    return out;
  }

  async #emitSynchronize(fullName: string, before: Map<number, string>, user: string): Promise<void> {
    if (!this.#webhook) return;
    const repo = this.#repo(fullName);
    for (const [number, oldSha] of before) {
      const pull = this.#pull(repo, number);
      const sha = (await this.branchSha(fullName, pull.head)) ?? '';
      if (sha === oldSha) continue;
      const payload = deepMerge(examplePayload('pull_request', 'synchronize'), {
        number,
        before: oldSha,
        after: sha,
        pull_request: await this.#pullJson(repo, pull),
        repository: repositoryJson(this.#payloadRepo(repo)),
        sender: userJson(user),
        installation: { id: repo.installationId ?? 0 },
      });
      await this.deliver('pull_request', payload);
    }
  }

  #payloadRepo(repo: FakeRepo): PayloadRepo {
    return {
      owner: repo.owner,
      name: repo.name,
      defaultBranch: repo.defaultBranch,
      webUrl: this.url,
      apiUrl: this.apiUrl,
    };
  }

  async #pullJson(repo: FakeRepo, pull: FakePull, mergedBy?: string): Promise<Json> {
    const fullName = `${repo.owner}/${repo.name}`;
    return pullRequestJson(
      this.#payloadRepo(repo),
      {
        number: pull.number,
        title: pull.title,
        body: pull.body,
        state: pull.state,
        draft: pull.draft,
        merged: pull.merged,
        mergeCommitSha: pull.mergeCommitSha,
        head: { ref: pull.head, sha: await this.headSha(fullName, pull) },
        base: { ref: pull.base, sha: (await this.branchSha(fullName, pull.base)) ?? '' },
        author: pull.author,
        updatedAt: pull.updatedAt,
        mergedAt: pull.mergedAt ?? null,
      },
      mergedBy,
    );
  }

  #commentJson(repo: FakeRepo, number: number, c: FakeComment): Json {
    const fullName = `${repo.owner}/${repo.name}`;
    return {
      id: c.id,
      body: c.body,
      user: userJson(c.user, c.user.endsWith('[bot]') ? 'Bot' : 'User'),
      created_at: c.createdAt,
      updated_at: c.createdAt,
      author_association: repo.collaborators.has(c.user) ? 'COLLABORATOR' : 'NONE',
      html_url: `${this.url}/${fullName}/${repo.issues.has(number) ? 'issues' : 'pull'}/${number}#issuecomment-${c.id}`,
      issue_url: `${this.apiUrl}/repos/${fullName}/issues/${number}`,
    };
  }

  #reviewCommentJson(repo: FakeRepo, number: number, c: FakeReviewComment): Json {
    return {
      ...this.#commentJson(repo, number, c),
      pull_request_review_id: c.reviewId,
      path: c.path,
      line: c.line,
      original_line: c.line,
      side: 'RIGHT',
      commit_id: c.commitId,
      original_commit_id: c.commitId,
      diff_hunk: '@@',
      ...(c.inReplyTo ? { in_reply_to_id: c.inReplyTo } : {}),
      html_url: `${this.url}/${repo.owner}/${repo.name}/pull/${number}#discussion_r${c.id}`,
    };
  }

  #repo(fullName: string): FakeRepo {
    const repo = this.#repos.get(fullName);
    if (!repo) throw new HttpError(404, 'Not Found');
    return repo;
  }

  #issue(repo: FakeRepo, number: number): FakeIssue {
    const issue = repo.issues.get(number);
    if (!issue) throw new HttpError(404, 'Not Found');
    return issue;
  }

  #pull(repo: FakeRepo, number: number): FakePull {
    const pull = repo.pulls.get(number);
    if (!pull) throw new HttpError(404, 'Not Found');
    return pull;
  }

  #json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(
      JSON.stringify(status >= 400 ? { ...(body as Json), documentation_url: 'https://docs.github.com/rest' } : body),
    );
  }
}

function allows(granted: Level | undefined, needed: Level): boolean {
  return granted === 'write' || (granted === 'read' && needed === 'read');
}

function push<T>(map: Map<number, T[]>, key: number, value: T): void {
  const list = map.get(key) ?? [];
  list.push(value);
  map.set(key, list);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'Problems parsing JSON');
  }
}

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run(
    'git',
    ['-c', 'user.name=Fake GitHub', '-c', 'user.email=noreply@fake.invalid', ...args],
    {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', GIT_CONFIG_NOSYSTEM: '1' },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return stdout;
}
