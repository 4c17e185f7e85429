import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '@pullwright/core';
import type { ApprovalPolicy, Caller } from '@pullwright/pipeline';
import type { Session } from './session-store.ts';

/** The name the shared API token signs in as. */
const OPERATOR = 'operator';

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/**
 * Who a dashboard token belongs to, and who may decide on a change. Every configured token
 * is compared, in constant time, on every sign-in: neither the time taken nor an early exit
 * tells an attacker which user, or how much of a token, matched.
 */
export class SessionCredentials {
  private readonly tokens: { user: string; via: Session['via']; digest: Buffer }[];
  private readonly approvers: ReadonlySet<string>;

  constructor(
    config: Pick<Config, 'apiToken' | 'dashboard'>,
    private readonly policy?: Pick<ApprovalPolicy, 'authorize'>,
  ) {
    if (!config.apiToken) throw new Error('API_TOKEN must be set before the dashboard accepts sign-ins');
    this.tokens = [
      { user: OPERATOR, via: 'api_token', digest: digest(config.apiToken) },
      ...config.dashboard.users.map((u) => ({ user: u.user, via: 'user_token' as const, digest: digest(u.token) })),
    ];
    this.approvers = new Set(config.dashboard.approvers);
  }

  identify(token: string): { user: string; via: Session['via'] } | undefined {
    const candidate = digest(token);
    let found: { user: string; via: Session['via'] } | undefined;
    for (const t of this.tokens) {
      if (timingSafeEqual(candidate, t.digest) && !found) found = { user: t.user, via: t.via };
    }
    return found;
  }

  /**
   * A GitHub login may decide when the policy's roles let it approve (IDENTITIES, by its
   * `github` handle). A token user: an empty approver list lets every one decide; the
   * operator always may.
   */
  canApprove(session: Pick<Session, 'user' | 'via'>): boolean {
    if (session.via === 'github') {
      try {
        this.policy?.authorize(this.callerOf(session), 'approve');
        return this.policy !== undefined;
      } catch {
        return false;
      }
    }
    return session.via === 'api_token' || this.approvers.size === 0 || this.approvers.has(session.user);
  }

  /** Who acts, for the policy: a GitHub sign-in is the GitHub login, anything else a dashboard user. */
  callerOf(session: Pick<Session, 'user' | 'via'>): Caller {
    return { user: session.user, source: session.via === 'github' ? 'github' : 'dashboard' };
  }
}
