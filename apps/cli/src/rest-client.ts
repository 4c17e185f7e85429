/** A refusal or failure the API answered with: its status, code and message, for the caller to read. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

/**
 * Pullwright's REST API as one caller uses it: the bearer token on every request, and the
 * caller's identity (`user`) on every body, which the API maps to a role (IDENTITIES) and
 * judges by the same policy as any other request.
 */
export class RestClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    readonly user: string,
  ) {}

  get(path: string): Promise<unknown> {
    return this.#send('GET', path);
  }

  /** A POST whose body carries the caller's identity. */
  post(path: string, body: Record<string, unknown> = {}): Promise<unknown> {
    return this.#send('POST', path, { ...body, user: this.user });
  }

  async #send(method: string, path: string, body?: Record<string, unknown>): Promise<unknown> {
    const res = await fetch(new URL(path, this.baseUrl), {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        accept: 'application/json',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const error = (json as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new RestError(res.status, error?.code ?? 'error', error?.message ?? (text.slice(0, 300) || res.statusText));
    }
    return json;
  }
}
