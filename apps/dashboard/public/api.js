// The REST API as the dashboard uses it: the session cookie travels by itself (httpOnly, so
// no script can read it); state-changing requests carry the session's CSRF token.

/**
 * `GET /v1/session`: who is signed in, what they may do, the CSRF token, the form's defaults.
 * @typedef {object} Session
 * @property {string} user
 * @property {'api_token' | 'user_token' | 'github'} via
 * @property {boolean} canApprove
 * @property {string} csrfToken
 * @property {string} expiresAt
 * @property {string | null} defaultRepo
 * @property {Required<import('@pullwright/core').Budget>} budget  The service's per-operation limits.
 * @property {string | null} demo  Set in demo mode: what the page says about it.
 */

export class ApiError extends Error {
  constructor(status, code, message, fields = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

/** @type {{ session: Session | null, listeners: Set<(session: Session | null) => void> }} */
const state = { session: null, listeners: new Set() };

export function currentSession() {
  return state.session;
}

/** Called with the session on sign-in and with null on sign-out or expiry. */
export function onSessionChange(listener) {
  state.listeners.add(listener);
  return () => state.listeners.delete(listener);
}

function setSession(session) {
  state.session = session;
  for (const l of state.listeners) l(session);
}

export async function api(method, url, body, extraHeaders = {}) {
  const headers = { accept: 'application/json', ...extraHeaders };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && state.session) headers['x-csrf-token'] = state.session.csrfToken;
  let res;
  try {
    res = await fetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, 'network', 'Cannot reach the server. Check your connection; retrying may help.');
  }
  if (res.status === 204) return null;
  const type = res.headers.get('content-type') ?? '';
  const payload = type.includes('application/json') ? await res.json().catch(() => null) : await res.text();
  if (!res.ok) {
    const error = payload && typeof payload === 'object' ? payload.error : undefined;
    if (res.status === 401 && state.session && !url.startsWith('/v1/session')) setSession(null);
    throw new ApiError(res.status, error?.code ?? 'http', error?.message ?? `HTTP ${res.status}`, error?.fields ?? []);
  }
  return payload;
}

/** Restores the session from the cookie; null when there is none (or it expired). */
export async function loadSession() {
  try {
    setSession(await api('GET', '/v1/session'));
  } catch (err) {
    if (err.status !== 401) throw err;
    setSession(null);
  }
  return state.session;
}

export async function signIn(token) {
  setSession(await api('POST', '/v1/session', { token }));
  return state.session;
}

export async function signOut() {
  try {
    await api('DELETE', '/v1/session');
  } finally {
    setSession(null);
  }
}

/** After a 401 from a stream or a request: is the session really gone? */
export async function recheckSession() {
  if (!state.session) return null;
  return loadSession();
}
