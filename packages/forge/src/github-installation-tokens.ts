import type { Octokit } from '@octokit/rest';
import { type Logger, PullwrightError, silentLogger } from '@pullwright/core';

/**
 * What a Pullwright token may do: push the branch (contents), open and merge the PR
 * (pull_requests), write the tracking comment and react on issues (issues), read red CI
 * (checks, actions: read only). Nothing else: no workflows, no
 * administration, and only the one repository the operation targets.
 */
export const INSTALLATION_TOKEN_PERMISSIONS = {
  contents: 'write',
  pull_requests: 'write',
  issues: 'write',
  /** Red CI on an operation's PR: the check runs, their annotations… */
  checks: 'read',
  /** …and the Actions job logs behind them. */
  actions: 'read',
} as const;

type TokenPermission = keyof typeof INSTALLATION_TOKEN_PERMISSIONS;

/**
 * Permissions only one feature needs, and what it is. An installation made before the app
 * asked for one has not granted it until its owner accepts the new permissions (GitHub asks
 * them); meanwhile a token that requested it would be refused outright — every operation
 * failing for one feature. So a token asks for these only where the installation grants
 * them, and the feature says what it lacks. The others are what an operation is: without
 * them minting fails, naming them.
 */
const OPTIONAL_PERMISSIONS: Partial<Record<TokenPermission, string>> = {
  checks: 'reading red CI on an operation’s pull request',
  actions: 'reading the Actions job logs of red CI',
};

/** `actions: read`: how a permission is named to a person (GitHub's settings page uses these words). */
const permissionName = (name: string) => `${name}: ${INSTALLATION_TOKEN_PERMISSIONS[name as TokenPermission]}`;

type Granted = Record<string, string | undefined>;

/** Whether `granted` covers `wanted` (write covers read). */
function grants(granted: string | undefined, wanted: string): boolean {
  return granted === wanted || granted === 'write' || granted === 'admin';
}

/** The optional permissions `granted` lacks; an installation that does not list its permissions lacks none. */
function missingPermissions(granted: Granted | undefined): string[] {
  if (!granted) return [];
  return Object.keys(OPTIONAL_PERMISSIONS)
    .filter((name) => !grants(granted[name], INSTALLATION_TOKEN_PERMISSIONS[name as TokenPermission]))
    .map(permissionName);
}

/** An installation that lacks optional permissions: its account and what is off there. */
export interface PermissionGap {
  account: string;
  missing: { permission: string; affects: string }[];
}

/** How long a listing of the installations' permissions answers readiness probes. */
const GAPS_TTL_MS = 60_000;

type TokenPermissions = Readonly<Partial<Record<keyof typeof INSTALLATION_TOKEN_PERMISSIONS, 'read' | 'write'>>>;

/**
 * What each holder's token may do, by the job it serves (holders are `<opId>/<job>`, see the
 * pipeline's `tokenHolder`): a merge merges and comments, and reads no CI; a deploy only
 * follows the merged commit's status. Anything else (the process's own REST calls, a run, a
 * revision, CI repair) gets the whole set above.
 */
const PERMISSIONS_BY_JOB: Readonly<Record<string, TokenPermissions>> = {
  merge: { contents: 'write', pull_requests: 'write', issues: 'write' },
  deploy: { contents: 'read', pull_requests: 'read', issues: 'write', checks: 'read' },
};

/** A worker fetching a queued operation's mirror ahead of its job (`prefetch:<opId>`) only reads. */
const PREFETCH = 'prefetch:';

/** The permissions a holder's job needs (see PERMISSIONS_BY_JOB). */
function permissionsFor(holder: string): TokenPermissions {
  if (holder.startsWith(PREFETCH)) return { contents: 'read' };
  const slash = holder.lastIndexOf('/');
  return (slash >= 0 && PERMISSIONS_BY_JOB[holder.slice(slash + 1)]) || INSTALLATION_TOKEN_PERMISSIONS;
}

/** The operation a job's holder belongs to (`<opId>/<job>`, `prefetch:<opId>`), or undefined for the process's own. */
export function holderOperation(holder: string): { opId: string; job: string } | undefined {
  if (holder.startsWith(PREFETCH)) return { opId: holder.slice(PREFETCH.length), job: 'prefetch' };
  const slash = holder.lastIndexOf('/');
  if (slash <= 0) return undefined;
  return { opId: holder.slice(0, slash), job: holder.slice(slash + 1) };
}

/**
 * Where a GitHub forge gets its installation tokens: minted in this process with the App key
 * (`GitHubInstallationTokens`), or asked of the API's credential broker by a worker that holds
 * no key (`BrokeredInstallationTokens`).
 */
export interface InstallationTokenSource {
  /** A token for `repo` only, for `holder`, valid for at least the refresh margin. */
  get(repo: string, holder?: string): Promise<string>;
  /** Ends the holder's token (a failure is logged, not thrown). */
  revoke(repo: string, holder?: string): Promise<void>;
  /** Ends every token this process holds (shutdown). */
  revokeAll(): Promise<void>;
  /** The optional permissions (`actions: read`…) the installation covering `repo` has not granted. */
  missingPermissions(repo: string): Promise<string[]>;
}

/**
 * GitHub installation tokens live one hour. Refreshing with 10 minutes left covers a git
 * push or a merge that starts just before expiry, with room for clock skew.
 */
export const DEFAULT_REFRESH_MARGIN_MS = 10 * 60_000;

interface CachedToken {
  token: string;
  expiresAt: number;
}

interface GitHubInstallationTokensOptions {
  refreshMarginMs?: number;
  /** Every minted token is handed here first, so the process Redactor masks it everywhere. */
  onToken?: (token: string) => void;
  logger?: Logger;
  /** For revocation: a client that authenticates with the token it is given. */
  revoke: (token: string) => Promise<void>;
}

/**
 * Installation tokens scoped to one repository, one per holder (an operation, or the
 * process itself for REST calls), cached until shortly before they expire and revoked
 * when the holder is done. Minting is our own call (not auth-app's cache) so two holders
 * never share a token: revoking one operation's token cannot break another's push.
 */
export class GitHubInstallationTokens implements InstallationTokenSource {
  readonly #installations = new Map<string, Promise<{ id: number; permissions: Granted | undefined }>>();
  #gaps: { at: number; gaps: Promise<PermissionGap[]> } | undefined;
  readonly #tokens = new Map<string, Promise<CachedToken>>();
  readonly #refreshMarginMs: number;
  readonly #logger: Logger;

  /** `app` authenticates as the app (JWT); auth-app signs its requests. */
  constructor(
    private readonly app: Octokit,
    private readonly options: GitHubInstallationTokensOptions,
  ) {
    this.#refreshMarginMs = options.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS;
    this.#logger = options.logger ?? silentLogger();
  }

  /** The installation that covers `repo`, or undefined when the app is not installed there. */
  async installationId(repo: string): Promise<number | undefined> {
    return (await this.#installation(repo))?.id;
  }

  /** The optional permissions (`actions: read`…) the installation covering `repo` has not granted. */
  async missingPermissions(repo: string): Promise<string[]> {
    return missingPermissions((await this.#installation(repo))?.permissions);
  }

  /**
   * Every installation lacking an optional permission, for the readiness detail: listed with
   * the app's key, kept a minute (a probe every few seconds must not spend the rate limit).
   */
  permissionGaps(now = Date.now()): Promise<PermissionGap[]> {
    if (this.#gaps && now - this.#gaps.at < GAPS_TTL_MS) return this.#gaps.gaps;
    const gaps = this.app.paginate(this.app.rest.apps.listInstallations, { per_page: 100 }).then((installations) =>
      installations.flatMap((i) => {
        const missing = missingPermissions(i.permissions as Granted).map((permission) => ({
          permission,
          affects: OPTIONAL_PERMISSIONS[permission.split(':')[0] as TokenPermission]!,
        }));
        const account = i.account && 'login' in i.account ? i.account.login : String(i.id);
        return missing.length > 0 ? [{ account, missing }] : [];
      }),
    );
    this.#gaps = { at: now, gaps };
    gaps.catch(() => {
      if (this.#gaps?.gaps === gaps) this.#gaps = undefined;
    });
    return gaps;
  }

  async #installation(repo: string): Promise<{ id: number; permissions: Granted | undefined } | undefined> {
    let pending = this.#installations.get(repo);
    if (!pending) {
      const [owner, name] = splitRepo(repo);
      pending = this.app.rest.apps
        .getRepoInstallation({ owner, repo: name })
        .then((r) => ({ id: r.data.id, permissions: r.data.permissions as Granted | undefined }));
      this.#installations.set(repo, pending);
      // A miss is not cached: the app may be installed a minute later.
      pending.catch(() => this.#installations.delete(repo));
    }
    try {
      return await pending;
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw forgeError(`looking up the installation for ${repo}`, err);
    }
  }

  /** A token for `repo` only, with the permissions the holder's job needs, valid for at least the refresh margin. */
  async get(repo: string, holder = ''): Promise<string> {
    const key = `${repo}\0${holder}`;
    const cached = this.#tokens.get(key);
    if (cached) {
      const entry = await cached.catch(() => undefined);
      if (entry && entry.expiresAt - this.#refreshMarginMs > Date.now()) return entry.token;
      // Only the caller that still sees the stale entry replaces it; concurrent callers share the new one.
      if (this.#tokens.get(key) !== cached) return this.get(repo, holder);
    }
    const minting = this.#mint(repo, permissionsFor(holder));
    this.#tokens.set(key, minting);
    minting.catch(() => {
      if (this.#tokens.get(key) === minting) this.#tokens.delete(key);
    });
    return (await minting).token;
  }

  /** Revokes the holder's token (if any) on GitHub and forgets it. Failures are logged, not thrown. */
  async revoke(repo: string, holder = ''): Promise<void> {
    const key = `${repo}\0${holder}`;
    const cached = this.#tokens.get(key);
    if (!cached) return;
    this.#tokens.delete(key);
    const entry = await cached.catch(() => undefined);
    if (!entry) return;
    try {
      await this.options.revoke(entry.token);
    } catch (err) {
      // It expires within the hour anyway; a failed revoke must not fail the operation.
      this.#logger.warn({ repo, status: statusOf(err) }, 'installation token revocation failed');
    }
  }

  /** Revokes every token this process holds (shutdown). */
  async revokeAll(): Promise<void> {
    const keys = [...this.#tokens.keys()];
    await Promise.all(
      keys.map((k) => {
        const [repo, holder] = k.split('\0') as [string, string];
        return this.revoke(repo, holder);
      }),
    );
  }

  /** When the holder's token expires (epoch ms), or undefined when it holds none: what the broker tells a worker. */
  async expiresAt(repo: string, holder = ''): Promise<number | undefined> {
    return (await this.#tokens.get(`${repo}\0${holder}`)?.catch(() => undefined))?.expiresAt;
  }

  async #mint(repo: string, permissions: TokenPermissions): Promise<CachedToken> {
    const installationId = await this.installationId(repo);
    if (installationId === undefined) {
      throw new PullwrightError('forge_failed', `the GitHub App is not installed on ${repo}`, { repo });
    }
    const [, name] = splitRepo(repo);
    // What the job needs and the installation grants: an optional permission it lacks is left out.
    const missing = new Set(await this.missingPermissions(repo));
    const granted = Object.fromEntries(Object.entries(permissions).filter(([n]) => !missing.has(permissionName(n))));
    try {
      const { data } = await this.app.request('POST /app/installations/{installation_id}/access_tokens', {
        installation_id: installationId,
        repositories: [name],
        permissions: granted,
      });
      this.options.onToken?.(data.token);
      this.#logger.debug({ repo, installationId, expiresAt: data.expires_at }, 'installation token minted');
      return { token: data.token, expiresAt: Date.parse(data.expires_at) };
    } catch (err) {
      throw forgeError(`minting an installation token for ${repo}`, err);
    }
  }
}

export function splitRepo(repo: string): [string, string] {
  const i = repo.indexOf('/');
  return [repo.slice(0, i), repo.slice(i + 1)];
}

export function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown })?.status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * A forge error that names what failed and GitHub's status and message, and nothing else:
 * the Octokit error carries the request (headers, URL) and is deliberately not attached.
 */
export function forgeError(what: string, err: unknown): PullwrightError {
  if (err instanceof PullwrightError) return err;
  const status = statusOf(err);
  const message = String((err as Error)?.message ?? err)
    .split('\n')[0]!
    .replace(/\b(?:token|bearer)\s+\S+/gi, '[redacted]')
    .slice(0, 300);
  // GitHub did not answer, or answered a server error or a rate limit: worth another try.
  const transient = status !== undefined ? status >= 500 || status === 429 : UNANSWERED.test(message);
  return new PullwrightError('forge_failed', `GitHub: ${what} failed${status ? ` (${status})` : ''}: ${message}`, {
    ...(status ? { status } : {}),
    transient,
  });
}

/** How node's fetch (and Octokit on top of it) says that nothing answered. */
const UNANSWERED =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|socket hang up|fetch failed|other side closed/i;
