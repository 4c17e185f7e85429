import { PullwrightError } from '@pullwright/core';

/** What git prints when the forge did not answer (or its repository is not where it was). */
const UNREACHABLE =
  /Failed to connect|Connection refused|Could not resolve host|Connection timed out|Operation timed out|Connection reset|remote end hung up unexpectedly|early EOF|Empty reply from server|SSL_connect|gnutls_handshake|does not appear to be a git repository/i;
/** `The requested URL returned error: 503`, `RPC failed; HTTP 502`. */
const HTTP_STATUS = /(?:returned error|RPC failed; HTTP):? (\d{3})/;

/** A forge failure worth retrying: it did not answer, or answered 5xx or 429. */
type ForgeFailureContext = { transient: boolean; status?: number };

/**
 * A git transport failure (fetch, ls-remote, push) as a forge failure: `transient` when the
 * forge did not answer or answered a server error, so the publish gate retries it. The message
 * says what happened in our words, never git's stderr, which names the remote — for a local
 * forge, an absolute path of the server.
 */
export function forgeTransportError(doing: string, err: unknown): PullwrightError<ForgeFailureContext> | undefined {
  const text = err instanceof Error ? err.message : String(err);
  const status = Number(HTTP_STATUS.exec(text)?.[1] ?? 0) || undefined;
  if (status !== undefined) {
    return new PullwrightError('forge_failed', `${doing} failed: the forge answered HTTP ${status}`, {
      transient: status >= 500 || status === 429,
      status,
    });
  }
  if (UNREACHABLE.test(text))
    return new PullwrightError('forge_failed', `${doing} failed: the forge did not answer`, { transient: true });
  return undefined;
}
