import type { Config } from '@pullwright/core';
import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { sendError } from './http-errors.ts';
import { principalOf, readCookie, SESSION_COOKIE, sessionAuth } from './session-auth.ts';
import type { SessionCredentials } from './session-credentials.ts';
import type { Session, SessionStore } from './session-store.ts';
import { validate } from './validate.ts';

interface SessionRouterDeps {
  config: Pick<Config, 'defaultRepo' | 'budget'> & { apiToken: string };
  sessions: SessionStore;
  credentials: SessionCredentials;
  /** DEMO_REFUSAL when the service runs in demo mode, else undefined. */
  demo?: string | undefined;
}

const SignInBody = z.object({ token: z.string().min(1, 'required').max(1000) }).strict();

/**
 * Behind a TLS-terminating proxy the connection is plain http; the proxy's header says what
 * the browser used. Trusting it here is safe: a forged value can only make a client's own
 * cookie stricter.
 */
export function overHttps(req: Request): boolean {
  return req.secure || req.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'https';
}

/** What the page needs: who, what they may do, the CSRF token, and the form's defaults. */
function sessionJson(session: Session, deps: SessionRouterDeps) {
  return {
    user: session.user,
    /** api_token, user_token or github. */
    via: session.via,
    canApprove: deps.credentials.canApprove(session),
    csrfToken: session.csrfToken,
    expiresAt: session.expiresAt,
    defaultRepo: deps.config.defaultRepo ?? null,
    /** The service's per-operation limits: the new-operation form's defaults. */
    budget: deps.config.budget,
    /** Demo mode: the page says so, and that new operations need a model key or a replay file. */
    demo: deps.demo ?? null,
  };
}

/**
 * Signs `who` in: a fresh session id on every sign-in (the one it replaces stops working),
 * in an httpOnly, SameSite=Strict cookie.
 */
export async function issueSession(
  req: Request,
  res: Response,
  sessions: SessionStore,
  who: { user: string; via: Session['via'] },
): Promise<Session> {
  const previous = readCookie(req, SESSION_COOKIE);
  if (previous) await sessions.destroy(previous);
  const { id, session } = await sessions.create(who.user, who.via);
  res.cookie(SESSION_COOKIE, id, {
    httpOnly: true,
    sameSite: 'strict',
    secure: overHttps(req),
    path: '/',
    maxAge: sessions.ttlS * 1000,
  });
  return session;
}

function noStore(res: Response): void {
  res.set('Cache-Control', 'no-store');
}

/**
 * `/v1/session`: sign in with a token (POST), who am I plus the CSRF token (GET), sign out
 * (DELETE). Sign-in accepts JSON only, so a cross-site form cannot sign a victim in.
 */
export function sessionRouter(deps: SessionRouterDeps): Router {
  const { sessions, credentials } = deps;
  const auth = sessionAuth(deps.config.apiToken, sessions);
  const router = Router();

  router.post('/', async (req, res) => {
    noStore(res);
    if (!req.is('application/json')) {
      return sendError(res, 415, 'unsupported_media_type', 'send the token as JSON: {"token": "…"}');
    }
    const { token } = validate(SignInBody, req.body, 'body');
    const who = credentials.identify(token);
    if (!who) return sendError(res, 401, 'unauthorized', 'that token was not accepted');
    const session = await issueSession(req, res, sessions, who);
    res.status(201).json(sessionJson(session, deps));
  });

  router.get('/', auth, (_req, res) => {
    noStore(res);
    const principal = principalOf(res);
    if (principal.kind !== 'session') return sendError(res, 400, 'no_session', 'bearer clients have no session');
    res.json(sessionJson(principal.session, deps));
  });

  router.delete('/', auth, async (req, res) => {
    noStore(res);
    const principal = principalOf(res);
    if (principal.kind === 'session') await sessions.destroy(principal.sessionId);
    res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', secure: overHttps(req), path: '/' });
    res.status(204).end();
  });

  return router;
}
