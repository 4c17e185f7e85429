import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { bearerAuth } from './bearer-auth.ts';
import { sendError } from './http-errors.ts';
import type { Session, SessionStore } from './session-store.ts';

export const SESSION_COOKIE = 'pw_session';
const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Who made a request: an API client with the bearer token, or a signed-in dashboard user. */
export type Principal = { kind: 'bearer' } | { kind: 'session'; sessionId: string; session: Session };

export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new Error('principalOf called on a route without sessionAuth');
  return principal;
}

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Constant-time comparison of two secrets of any length (hashed first, so lengths do not leak). */
export function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * Bearer token or dashboard session. A request that sends `Authorization` is judged by it
 * alone (a wrong token is never rescued by a cookie). A session request that changes state
 * must echo the session's CSRF token in `X-CSRF-Token`: a cross-site page can make the
 * browser send the cookie, but cannot read the token to send it back.
 */
export function sessionAuth(apiToken: string, sessions: SessionStore): RequestHandler {
  const bearer = bearerAuth(apiToken);
  return async (req, res, next) => {
    if (req.get('authorization') !== undefined) {
      res.locals.principal = { kind: 'bearer' } satisfies Principal;
      return bearer(req, res, next);
    }
    const sessionId = readCookie(req, SESSION_COOKIE);
    const session = sessionId ? await sessions.get(sessionId) : undefined;
    if (!sessionId || !session) {
      res.set('WWW-Authenticate', 'Bearer realm="pullwright"');
      return sendError(
        res,
        401,
        'unauthorized',
        sessionId ? 'the session has expired or was signed out; sign in again' : 'missing bearer token or session',
      );
    }
    if (!SAFE_METHODS.has(req.method)) {
      const sent = req.get(CSRF_HEADER);
      if (!sent || !sameSecret(sent, session.csrfToken)) {
        return sendError(res, 403, 'csrf_failed', `missing or wrong ${CSRF_HEADER} header; reload the page`);
      }
    }
    res.locals.principal = { kind: 'session', sessionId, session } satisfies Principal;
    return next();
  };
}
