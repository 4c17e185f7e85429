import { BUDGET_ERROR_TYPE, type ProviderFailureReason } from './model-provider-error.ts';

export interface UpstreamFailure {
  reason: ProviderFailureReason;
  status: number | undefined;
  /** From `retry-after-ms` / `retry-after`, when the server sent one that parses to a positive wait. */
  retryAfterMs: number | undefined;
  /** Upstream text, unredacted: callers must redact before it leaves the provider. */
  detail: string;
}

/** Raised by our own response checks (stream cut short, body of the wrong shape). */
export class UpstreamProtocolError extends Error {
  constructor(
    readonly reason: 'connection' | 'invalid_response',
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamProtocolError';
  }
}

interface HeadersLike {
  get(name: string): string | null;
}

function isHeadersLike(value: unknown): value is HeadersLike {
  return typeof value === 'object' && value !== null && typeof (value as HeadersLike).get === 'function';
}

/**
 * Both headers Anthropic and OpenAI send on 429/529: `retry-after-ms` (non-standard, more
 * precise) wins over `retry-after` (seconds or an HTTP date).
 */
export function retryAfterMs(headers: unknown, now: number = Date.now()): number | undefined {
  if (!isHeadersLike(headers)) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value > 0) return value;
  }
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds > 0 ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  return Number.isFinite(date) && date > now ? date - now : undefined;
}

function reasonForStatus(status: number): ProviderFailureReason {
  if (status === 401 || status === 403) return 'auth';
  // 402 is how the model gateway refuses a call past the operation's budget.
  if (status === 402) return 'budget';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate_limited';
  // 529 is Anthropic's "overloaded"; 503 is how most proxies and local servers say the same.
  if (status === 529 || status === 503) return 'overloaded';
  // 409: both APIs use it for transient lock conflicts, and their SDKs retry it.
  if (status === 409 || status >= 500) return 'server_error';
  return 'bad_request';
}

/** Anthropic sends these inside a 200 SSE stream as `event: error`; no HTTP status then. */
function reasonForErrorType(type: string | undefined): ProviderFailureReason | undefined {
  switch (type) {
    case 'overloaded_error':
      return 'overloaded';
    case 'rate_limit_error':
      return 'rate_limited';
    case 'api_error':
      return 'server_error';
    case 'timeout_error':
      return 'timeout';
    case 'authentication_error':
    case 'permission_error':
      return 'auth';
    case BUDGET_ERROR_TYPE:
      return 'budget';
    case 'invalid_request_error':
    case 'not_found_error':
    case 'request_too_large':
      return 'bad_request';
    default:
      return undefined;
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: matches any SDK error constructor for instanceof.
type ErrorClass = abstract new (...args: any[]) => Error;

/** The two SDK classes that carry no HTTP status but still mean "try again". */
export interface SdkErrorClasses {
  connectionError: ErrorClass;
  timeoutError: ErrorClass;
}

/**
 * Maps whatever an SDK call threw to one failure reason. Status and body are read by
 * shape: the Anthropic and OpenAI SDKs share it (`status`, `headers`, `type`) but not
 * their classes, which the caller passes for the connection cases.
 */
export function classifyFailure(err: unknown, sdk: SdkErrorClasses): UpstreamFailure {
  if (err instanceof UpstreamProtocolError) {
    return { reason: err.reason, status: undefined, retryAfterMs: undefined, detail: err.message };
  }
  const detail = err instanceof Error ? err.message : String(err);
  const status = typeof field(err, 'status') === 'number' ? (field(err, 'status') as number) : undefined;
  const headers = field(err, 'headers');
  const type = field(err, 'type') ?? field(field(field(err, 'error'), 'error'), 'type');
  const typed = reasonForErrorType(typeof type === 'string' ? type : undefined);
  if (status !== undefined)
    return { reason: reasonForStatus(status), status, retryAfterMs: retryAfterMs(headers), detail };
  if (typed) return { reason: typed, status: undefined, retryAfterMs: retryAfterMs(headers), detail };
  // The timeout class extends the connection class, so it is tested first.
  if (err instanceof sdk.timeoutError) return { reason: 'timeout', status, retryAfterMs: undefined, detail };
  // undici's TypeError('terminated') is a socket closed mid-body, after the SDK let go.
  if (err instanceof sdk.connectionError || (err instanceof TypeError && /fetch failed|terminated/i.test(detail))) {
    return { reason: 'connection', status, retryAfterMs: undefined, detail };
  }
  return { reason: 'invalid_response', status, retryAfterMs: undefined, detail };
}
