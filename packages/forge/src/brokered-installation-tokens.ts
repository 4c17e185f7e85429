import { type Logger, PullwrightError, silentLogger } from '@pullwright/core';
import { DEFAULT_REFRESH_MARGIN_MS, type InstallationTokenSource } from './github-installation-tokens.ts';
import { currentJobHolder } from './job-scope.ts';

interface BrokeredInstallationTokensOptions {
  /** INTERNAL_API_URL (default PUBLIC_URL): the API that holds the App key. */
  internalApiUrl: string;
  /** WORKER_TOKEN: authorizes the broker's routes, nothing else. */
  workerToken: string;
  /** Every token received is handed here first, so the process Redactor masks it everywhere. */
  onToken?: (token: string) => void;
  logger?: Logger;
  refreshMarginMs?: number;
}

/** What the broker answers for a token (see the API's internal routes). */
interface BrokeredToken {
  token: string;
  expiresAt: string;
  /** The optional permissions the installation has not granted (`actions: read`…). */
  missingPermissions?: string[];
}

/**
 * Installation tokens for a worker that holds no App key: asked of the API's credential
 * broker (`POST /internal/v1/github/tokens`), which mints each one for the job's one
 * repository with the permissions its job type needs, and revokes it when asked
 * (`DELETE`). A call outside a job's own holder uses the job in scope (see `inJobScope`):
 * the broker mints nothing for a process, only for a live operation's job.
 */
export class BrokeredInstallationTokens implements InstallationTokenSource {
  readonly #tokens = new Map<string, Promise<{ token: string; expiresAt: number }>>();
  /** Per repository, what the broker said the installation lacks with the last token it minted. */
  readonly #missing = new Map<string, string[]>();
  readonly #url: string;
  readonly #logger: Logger;
  readonly #refreshMarginMs: number;

  constructor(private readonly options: BrokeredInstallationTokensOptions) {
    this.#url = `${options.internalApiUrl.replace(/\/+$/, '')}/internal/v1/github/tokens`;
    this.#logger = options.logger ?? silentLogger();
    this.#refreshMarginMs = options.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS;
  }

  async get(repo: string, holder = ''): Promise<string> {
    const who = holder || currentJobHolder();
    if (!who) {
      throw new PullwrightError(
        'forge_failed',
        `GitHub: no token for ${repo} outside a job: this worker holds no App key, and the credential broker mints tokens for an operation's job only`,
      );
    }
    const key = `${repo}\0${who}`;
    const cached = await this.#tokens.get(key)?.catch(() => undefined);
    if (cached && cached.expiresAt - this.#refreshMarginMs > Date.now()) return cached.token;
    const asking = this.#ask('POST', repo, who).then((answer) => {
      const { token, expiresAt, missingPermissions } = answer as BrokeredToken;
      this.options.onToken?.(token);
      this.#missing.set(repo, missingPermissions ?? []);
      return { token, expiresAt: Date.parse(expiresAt) };
    });
    this.#tokens.set(key, asking);
    asking.catch(() => {
      if (this.#tokens.get(key) === asking) this.#tokens.delete(key);
    });
    return (await asking).token;
  }

  /** Revokes a job's token through the broker; the process has no token of its own to revoke. */
  async revoke(repo: string, holder = ''): Promise<void> {
    if (!holder) return;
    this.#tokens.delete(`${repo}\0${holder}`);
    await this.#ask('DELETE', repo, holder).catch((err: unknown) =>
      // It expires within the hour anyway; a failed revoke must not fail the operation.
      this.#logger.warn({ repo, err: (err as Error).message }, 'installation token revocation failed'),
    );
  }

  /** What the installation lacks, as the broker said with this repository's latest token (none before one). */
  async missingPermissions(repo: string): Promise<string[]> {
    return this.#missing.get(repo) ?? [];
  }

  async revokeAll(): Promise<void> {
    await Promise.all(
      [...this.#tokens.keys()].map((k) => {
        const [repo, holder] = k.split('\0') as [string, string];
        return this.revoke(repo, holder);
      }),
    );
  }

  async #ask(method: 'POST' | 'DELETE', repo: string, holder: string): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(this.#url, {
        method,
        headers: { authorization: `Bearer ${this.options.workerToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ repo, holder }),
      });
    } catch (err) {
      throw new PullwrightError(
        'forge_failed',
        `the credential broker at INTERNAL_API_URL did not answer: ${(err as Error).message}`,
        { transient: true },
      );
    }
    const body = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
    if (!res.ok) {
      throw new PullwrightError(
        'forge_failed',
        `the credential broker refused a token for ${repo} (${res.status}): ${body.error?.message ?? 'no reason given'}`,
        { status: res.status, transient: res.status >= 500 },
      );
    }
    return body;
  }
}
