import { FINAL_STATUSES, PullwrightError } from '@pullwright/core';
import { type GitHubInstallationTokens, holderOperation } from '@pullwright/forge';
import type { OperationStore } from '@pullwright/queue';

/**
 * What a worker receives: the token, when it expires (it asks again before then), and the
 * optional permissions the installation has not granted (the token goes without them).
 */
interface BrokeredToken {
  token: string;
  expiresAt: string;
  missingPermissions: string[];
}

/**
 * The API's credential broker: mints installation tokens with the App key that only the API
 * holds, for workers that hold none. A token is minted for a job's holder (`<opId>/<job>`,
 * `prefetch:<opId>`) only while that operation lives, for the operation's own repository,
 * with the permissions the job type needs (see `permissionsFor`), and revoked when the job
 * asks (its end) — so a compromised worker gets tokens for the repositories of live
 * operations only, never for the whole installation.
 */
export class CredentialBroker {
  constructor(
    private readonly store: OperationStore,
    private readonly tokens: GitHubInstallationTokens,
  ) {}

  async mint(repo: string, holder: string): Promise<BrokeredToken> {
    await this.#authorize(repo, holder);
    const token = await this.tokens.get(repo, holder);
    const expiresAt = await this.tokens.expiresAt(repo, holder);
    const missingPermissions = await this.tokens.missingPermissions(repo);
    return { token, expiresAt: new Date(expiresAt ?? Date.now()).toISOString(), missingPermissions };
  }

  /** Revokes the holder's token; only a holder of an operation on `repo` may be named. */
  async revoke(repo: string, holder: string): Promise<void> {
    const owner = holderOperation(holder);
    if (!owner) throw refused(holder, 'names no operation');
    const op = await this.store.find(owner.opId);
    if (op && op.repo !== repo) throw refused(holder, `is not an operation on ${repo}`);
    await this.tokens.revoke(repo, holder);
  }

  async #authorize(repo: string, holder: string): Promise<void> {
    const owner = holderOperation(holder);
    if (!owner) throw refused(holder, 'names no operation (tokens are minted per job)');
    const op = await this.store.find(owner.opId);
    if (!op) throw refused(holder, 'names no operation');
    if (op.repo !== repo) throw refused(holder, `is not an operation on ${repo}`);
    // A deploy follows a merged operation; every other job works on a live one.
    const live = !FINAL_STATUSES.has(op.status) || (owner.job === 'deploy' && op.status === 'merged');
    if (!live) throw refused(holder, `belongs to an operation that ended (${op.status})`);
  }
}

function refused(holder: string, why: string): PullwrightError {
  return new PullwrightError('forbidden', `no token: holder ${JSON.stringify(holder.slice(0, 120))} ${why}`);
}
