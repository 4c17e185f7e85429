import type { Logger } from '@pullwright/core';
import type { RetryPolicy } from './with-retries.ts';

/**
 * Defaults for both providers. Four retries with 1 s doubling backoff (1, 2, 4, 8 s,
 * capped at 30 s) ride out the short 529/503 bursts seen under load; 10 minutes per
 * attempt covers a 32k-token reply at ~55 tokens/s; a server asking for more than a
 * minute's pause hands the job back to the queue instead of parking the worker.
 */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxRetries: 4,
  timeoutMs: 600_000,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
};

/** What every provider takes besides its endpoint and model. */
export interface RetryOptions {
  /** Hard limit per attempt, whole response included. Default 600 000 ms (10 min). */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt on 408/409/429/5xx/529, timeouts, dropped connections. Default 4. */
  maxRetries?: number | undefined;
  /** Backoff tuning; see `RetryPolicy`. */
  retry?: Partial<Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterMs'>> | undefined;
  /** Retries are logged here (warn). Default: silent. */
  logger?: Logger | undefined;
}

export function retryPolicyFrom(options: RetryOptions): RetryPolicy {
  return {
    ...DEFAULT_RETRY_POLICY,
    ...options.retry,
    timeoutMs: options.timeoutMs ?? DEFAULT_RETRY_POLICY.timeoutMs,
    maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
  };
}
