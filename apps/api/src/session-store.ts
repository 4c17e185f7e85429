import { createHash, randomBytes } from 'node:crypto';
import type { Runtime } from '@pullwright/pipeline';

export interface Session {
  user: string;
  /**
   * How the user signed in: the shared API token, their own token from DASHBOARD_USERS, or
   * GitHub (then `user` is the GitHub login, and IDENTITIES' `github` handles give the role).
   */
  via: 'api_token' | 'user_token' | 'github';
  /** Sent back by the page in `X-CSRF-Token` on every state-changing request. */
  csrfToken: string;
  createdAt: string;
  expiresAt: string;
}

function hash(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('base64url');
}

/**
 * Dashboard sign-ins in Redis. Keys hold a hash of the session id, so someone who can read
 * Redis (a backup, a MONITOR) cannot replay a cookie from it. A session ends at its
 * `expiresAt` by this store's clock; the key's own expiry only cleans Redis up after it.
 */
export class SessionStore {
  constructor(
    private readonly redis: Runtime['redis'],
    private readonly prefix: string,
    readonly ttlS: number,
    /** Epoch milliseconds; tests move it instead of waiting a session out. */
    private readonly now: () => number = Date.now,
  ) {}

  private key(sessionId: string): string {
    return `${this.prefix}:session:${hash(sessionId)}`;
  }

  /** Returns the new session id (the cookie value) and the session. */
  async create(user: string, via: Session['via']): Promise<{ id: string; session: Session }> {
    const id = randomBytes(32).toString('base64url');
    const now = new Date(this.now());
    const session: Session = {
      user,
      via,
      csrfToken: randomBytes(32).toString('base64url'),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.ttlS * 1000).toISOString(),
    };
    await this.redis.set(this.key(id), JSON.stringify(session), 'EX', this.ttlS);
    return { id, session };
  }

  async get(sessionId: string): Promise<Session | undefined> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(sessionId)) return undefined;
    const raw = await this.redis.get(this.key(sessionId));
    const session = raw ? (JSON.parse(raw) as Session) : undefined;
    return session && Date.parse(session.expiresAt) > this.now() ? session : undefined;
  }

  async destroy(sessionId: string): Promise<void> {
    await this.redis.del(this.key(sessionId));
  }
}
