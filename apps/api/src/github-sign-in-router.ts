import { randomBytes } from 'node:crypto';
import type { Config, Logger } from '@pullwright/core';
import { githubApiBaseUrl } from '@pullwright/forge';
import type { ApprovalPolicy } from '@pullwright/pipeline';
import { type Request, Router } from 'express';
import { z } from 'zod';
import { admitsGitHubLogin } from './admits-github-login.ts';
import { sendError } from './http-errors.ts';
import { readCookie, sameSecret } from './session-auth.ts';
import { issueSession, overHttps } from './session-router.ts';
import type { SessionStore } from './session-store.ts';
import { validate } from './validate.ts';

const STATE_COOKIE = 'pw_oauth_state';
const STATE_PATH = '/v1/session/github';
/** GitHub's codes live 10 minutes; a sign-in left longer starts again. */
const STATE_TTL_MS = 10 * 60_000;
const GITHUB_TIMEOUT_MS = 10_000;

const CallbackQuery = z.object({
  code: z.string().min(1, 'required').max(200),
  state: z.string().min(1, 'required').max(200),
});
const TokenAnswer = z.union([
  z.object({ access_token: z.string().min(1) }),
  z.object({ error: z.string(), error_description: z.string().optional() }),
]);
const GitHubUser = z.object({ login: z.string().regex(/^[A-Za-z0-9-]{1,39}$/) });

interface GitHubSignInDeps {
  config: Pick<Config, 'github' | 'publicUrl'>;
  sessions: SessionStore;
  policy: Pick<ApprovalPolicy, 'identity'>;
  logger: Logger;
}

/**
 * Sign in with GitHub (OAuth web flow with the GitHub App's client id and secret; GHES
 * too): `GET /v1/session/github` sends the browser to GitHub with a one-time `state` held
 * in a cookie, `GET /v1/session/github/callback` checks it, exchanges the code, reads the
 * login, and starts a dashboard session whose user is that login. The GitHub token is
 * used for that one `/user` call and never stored.
 */
export function githubSignInRouter(deps: GitHubSignInDeps): Router {
  const { clientId, clientSecret, url: githubUrl } = deps.config.github;
  const router = Router();
  const web = githubUrl.replace(/\/+$/, '');
  const redirectUri = `${deps.config.publicUrl}${STATE_PATH}/callback`;
  const stateCookie = (req: Request) => ({
    httpOnly: true,
    // Lax: the cookie must come back on GitHub's top-level redirect to the callback.
    sameSite: 'lax' as const,
    secure: overHttps(req),
    path: STATE_PATH,
  });

  /** For the sign-in page: whether to offer the button. */
  router.get('/status', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ enabled: Boolean(clientId && clientSecret) });
  });

  router.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    if (clientId && clientSecret) return next();
    return sendError(
      res,
      404,
      'not_configured',
      'GitHub sign-in is not configured: set GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET (the GitHub App’s OAuth client)',
    );
  });

  router.get('/', (req, res) => {
    const state = randomBytes(32).toString('base64url');
    res.cookie(STATE_COOKIE, state, { ...stateCookie(req), maxAge: STATE_TTL_MS });
    const authorize = new URL(`${web}/login/oauth/authorize`);
    authorize.searchParams.set('client_id', clientId ?? '');
    authorize.searchParams.set('redirect_uri', redirectUri);
    authorize.searchParams.set('state', state);
    res.redirect(302, authorize.toString());
  });

  router.get('/callback', async (req, res) => {
    if (typeof req.query.error === 'string') {
      return sendError(res, 401, 'unauthorized', `GitHub did not sign you in: ${req.query.error.slice(0, 100)}`);
    }
    const { code, state } = validate(CallbackQuery, req.query, 'query');
    const expected = readCookie(req, STATE_COOKIE);
    res.clearCookie(STATE_COOKIE, stateCookie(req));
    if (!expected || !sameSecret(expected, state)) {
      // A callback this browser did not start: a login CSRF, or a sign-in older than 10 minutes.
      return sendError(res, 400, 'validation_failed', 'state: does not match this browser’s sign-in; start again', {
        fields: [{ field: 'state', reason: 'does not match' }],
      });
    }
    let login: string;
    try {
      login = await exchange(code);
    } catch (err) {
      const reason = (err as Error).message;
      deps.logger.warn({ reason }, 'GitHub sign-in failed');
      return sendError(res, 502, 'github_sign_in_failed', `GitHub sign-in failed: ${reason}`);
    }
    if (!admitsGitHubLogin(web, deps.policy.identity({ source: 'github', user: login }))) {
      return sendError(res, 403, 'forbidden', `${login} is not in IDENTITIES; ask an admin to add your GitHub login`);
    }
    await issueSession(req, res, deps.sessions, { user: login, via: 'github' });
    deps.logger.info({ user: login }, 'dashboard sign-in with GitHub');
    res.redirect(303, '/');
  });

  async function exchange(code: string): Promise<string> {
    const tokenRes = await fetch(`${web}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: clientId, client_secret: clientSecret, code, redirect_uri: redirectUri }),
      signal: AbortSignal.timeout(GITHUB_TIMEOUT_MS),
    });
    const answer = TokenAnswer.safeParse(await tokenRes.json().catch(() => undefined));
    if (!tokenRes.ok || !answer.success) throw new Error(`token exchange answered ${tokenRes.status}`);
    if ('error' in answer.data) throw new Error(`GitHub refused the code (${answer.data.error})`);
    const userRes = await fetch(`${githubApiBaseUrl(web)}/user`, {
      headers: { accept: 'application/vnd.github+json', authorization: `Bearer ${answer.data.access_token}` },
      signal: AbortSignal.timeout(GITHUB_TIMEOUT_MS),
    });
    const user = GitHubUser.safeParse(await userRes.json().catch(() => undefined));
    if (!userRes.ok || !user.success) throw new Error(`GET /user answered ${userRes.status}`);
    return user.data.login;
  }

  return router;
}
