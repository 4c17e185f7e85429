import { errorOutcome, isPullwrightError } from '@pullwright/core';

/**
 * Messages of errors that mean "Redis is away or busy for a moment": ioredis connection
 * errors, a replica being promoted, a server loading its AOF, a Cluster resharding.
 */
const TRANSIENT_REDIS = [
  /Connection is closed/i,
  /max retries per request/i,
  /Stream isn't writeable/i,
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE/,
  /^LOADING\b/,
  /^READONLY\b/,
  /^(CLUSTERDOWN|TRYAGAIN|MASTERDOWN)\b/,
];

/**
 * True for errors worth running the job again for: the typed errors whose outcome is
 * `retry` and Redis outages. Everything else (a failed check, a secret finding, a refused
 * path, a bug) is final: the pipeline already ended the operation with a reason, and a
 * retry would only repeat it, or worse, repeat its side effects.
 */
export function isTransientError(err: unknown): boolean {
  if (isPullwrightError(err)) return errorOutcome(err.code).kind === 'retry';
  if (!(err instanceof Error)) return false;
  if (err.name === 'MaxRetriesPerRequestError') return true;
  return TRANSIENT_REDIS.some((pattern) => pattern.test(err.message));
}

/** Job starts (BullMQ `attemptsStarted`, crashes included) after which a transient error is final. */
export const MAX_JOB_STARTS = 8;

/**
 * Exponential backoff before run `attempt + 1`: 2 s, 4 s, 8 s … capped at 5 min, with ±20 %
 * jitter so the jobs of a Redis outage do not all come back in the same second.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(5 * 60_000, 2000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}
