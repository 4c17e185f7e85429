import { errorOutcome, isPullwrightError } from './errors.ts';

/**
 * Messages of errors that mean "Redis is away or busy for a moment": ioredis connection
 * errors, a replica being promoted, a server loading its AOF, a Cluster resharding.
 */
const REDIS_UNAVAILABLE = [
  /Connection is closed/i,
  /max retries per request/i,
  /Stream isn't writeable/i,
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE/,
  /^LOADING\b/,
  /^READONLY\b/,
  /^(CLUSTERDOWN|TRYAGAIN|MASTERDOWN)\b/,
];

/** True when `err` says Redis cannot be used right now: the API answers 503, a job runs again later. */
export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'MaxRetriesPerRequestError') return true;
  return REDIS_UNAVAILABLE.some((pattern) => pattern.test(err.message));
}

/**
 * True for errors worth running the job again for: the typed errors whose outcome is
 * `retry` and Redis outages. Everything else (a failed check, a secret finding, a refused
 * path, a bug) is final: the pipeline already ended the operation with a reason, and a
 * retry would only repeat it, or worse, repeat its side effects.
 */
export function isTransientError(err: unknown): boolean {
  if (isPullwrightError(err)) return errorOutcome(err.code).kind === 'retry';
  return isRedisUnavailable(err);
}
