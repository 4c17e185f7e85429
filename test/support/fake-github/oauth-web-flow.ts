import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

interface OAuthApp {
  clientSecret: string;
  /** The callback URL registered in the app's settings: redirect_uri must start with it. */
  callbackUrl: string;
}

interface Grant {
  clientId: string;
  login: string;
  redirectUri: string;
  expiresAt: number;
}

/** GitHub answers token-exchange errors with 200 and an `error` field, not a 4xx. */
function oauthError(res: ServerResponse, error: string, description: string): void {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify({ error, error_description: description }));
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if ((req.headers['content-type'] ?? '').includes('application/json')) {
    return new URLSearchParams(Object.entries(JSON.parse(text || '{}') as Record<string, string>));
  }
  return new URLSearchParams(text);
}

/**
 * GitHub's OAuth web flow as a GitHub App's user authorization plays it: the browser is sent
 * to `/login/oauth/authorize`, GitHub (here: the login the test says is signed in) redirects
 * back with a one-time code and the caller's `state`, the server exchanges the code with the
 * client secret at `/login/oauth/access_token`, then reads `GET /api/v3/user` with the token.
 */
export class FakeOAuthWebFlow {
  /** Who is signed in to GitHub in "the browser"; undefined: the authorize page would ask for a password. */
  browserLogin: string | undefined;
  readonly exchanges: { clientId: string; ok: boolean }[] = [];
  #apps = new Map<string, OAuthApp>();
  #grants = new Map<string, Grant>();
  #tokens = new Map<string, string>();

  registerApp(clientId: string, clientSecret: string, callbackUrl: string): void {
    this.#apps.set(clientId, { clientSecret, callbackUrl });
  }

  /** The login a user access token belongs to. */
  loginFor(token: string | undefined): string | undefined {
    return token === undefined ? undefined : this.#tokens.get(token);
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    if (url.pathname === '/login/oauth/authorize' && req.method === 'GET') {
      const clientId = url.searchParams.get('client_id') ?? '';
      const app = this.#apps.get(clientId);
      const redirectUri = url.searchParams.get('redirect_uri') ?? app?.callbackUrl ?? '';
      if (!app || !redirectUri.startsWith(app.callbackUrl)) {
        res
          .writeHead(404, { 'content-type': 'text/plain' })
          .end('The redirect_uri is not associated with this application.');
        return true;
      }
      if (!this.browserLogin) {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<form>Sign in to GitHub</form>');
        return true;
      }
      const code = randomBytes(10).toString('hex');
      this.#grants.set(code, { clientId, login: this.browserLogin, redirectUri, expiresAt: Date.now() + 10 * 60_000 });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      const state = url.searchParams.get('state');
      if (state !== null) back.searchParams.set('state', state);
      res.writeHead(302, { location: back.toString() }).end();
      return true;
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      const form = await readForm(req);
      const clientId = form.get('client_id') ?? '';
      const app = this.#apps.get(clientId);
      const code = form.get('code') ?? '';
      const grant = this.#grants.get(code);
      // A code is good once, whatever happens.
      this.#grants.delete(code);
      const ok = Boolean(app && app.clientSecret === form.get('client_secret') && grant && grant.clientId === clientId);
      this.exchanges.push({ clientId, ok });
      if (!app || app.clientSecret !== form.get('client_secret')) {
        oauthError(res, 'incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.');
        return true;
      }
      if (!grant || grant.clientId !== clientId || grant.expiresAt < Date.now()) {
        oauthError(res, 'bad_verification_code', 'The code passed is incorrect or expired.');
        return true;
      }
      const token = `ghu_${randomBytes(18).toString('hex')}`;
      this.#tokens.set(token, grant.login);
      if ((req.headers.accept ?? '').includes('application/json')) {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ access_token: token, token_type: 'bearer', scope: '' }));
      } else {
        res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' });
        res.end(`access_token=${token}&scope=&token_type=bearer`);
      }
      return true;
    }
    return false;
  }
}
