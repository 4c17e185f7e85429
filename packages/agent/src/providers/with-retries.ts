import type { Logger } from '@pullwright/core';
import type { Redactor } from '@pullwright/security';
import { classifyFailure, type SdkErrorClasses, type UpstreamFailure } from './classify-failure.ts';
import { isTransientFailure, ModelProviderError } from './model-provider-error.ts';

export interface RetryPolicy {
  /** Retries after the first attempt, for 408/409/429/5xx/529, timeouts and dropped connections. */
  maxRetries: number;
  /** Hard limit per attempt, covering the whole response (headers, body, every stream event). */
  timeoutMs: number;
  /** First backoff when the server names no wait; doubles per retry, ±25 % jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  /**
   * A server asking for a longer wait than this ends the call at once as `unavailable`
   * (with `retryAfterMs` in the context): a worker sleeping for minutes holds a worktree
   * and file locks, and the queue reschedules such a job better.
   */
  maxRetryAfterMs: number;
}

interface RetryRun {
  provider: string;
  policy: RetryPolicy;
  sdk: SdkErrorClasses;
  redactor: Redactor;
  logger: Logger;
  signal: AbortSignal | undefined;
}

const MAX_DETAIL = 500;

function abortable(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Rejects as soon as the signal fires, even if the SDK call is still draining a socket:
 * the timeout is hard whatever phase the request is in.
 */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  // The loser of the race must not surface as an unhandled rejection.
  work.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function backoffMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(exp * (0.75 + 0.5 * random()));
}

function fail(run: RetryRun, failure: UpstreamFailure, attempts: number, retryAfter?: number): ModelProviderError {
  const status = failure.status === undefined ? '' : `, HTTP ${failure.status}`;
  const detail = run.redactor.redact(failure.detail).slice(0, MAX_DETAIL);
  const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  return new ModelProviderError(
    `${run.provider} request failed (${failure.reason}${status}) after ${tries}: ${detail}`,
    {
      provider: run.provider,
      reason: failure.reason,
      status: failure.status,
      attempts,
      retryAfterMs: retryAfter,
    },
  );
}

/**
 * Runs one model call with our retry policy. The SDKs' own retries are switched off
 * (maxRetries 0) because they cannot retry a stream that fails after its 200 (Anthropic's
 * mid-stream `overloaded_error`), their timeout stops at the response headers, and they
 * sleep for any `retry-after` however long. Here every attempt has a hard deadline, the
 * caller's signal ends the call between or during attempts, and every failure leaves as
 * a redacted `ModelProviderError`.
 */
export async function withRetries<T>(run: RetryRun, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { policy, signal } = run;
  const cancelled = (attempts: number) =>
    fail(
      run,
      { reason: 'cancelled', status: undefined, retryAfterMs: undefined, detail: 'aborted by caller' },
      attempts,
    );
  for (let n = 1; ; n++) {
    if (signal?.aborted) throw cancelled(n - 1);
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new Error(`no complete response within ${policy.timeoutMs} ms`)),
      policy.timeoutMs,
    );
    const attemptSignal = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
    let failure: UpstreamFailure;
    try {
      return await raceAbort(attempt(attemptSignal), attemptSignal);
    } catch (err) {
      if (signal?.aborted) throw cancelled(n);
      failure = deadline.signal.aborted
        ? {
            reason: 'timeout',
            status: undefined,
            retryAfterMs: undefined,
            detail: `no complete response within ${policy.timeoutMs} ms`,
          }
        : classifyFailure(err, run.sdk);
    } finally {
      clearTimeout(timer);
    }
    if (!isTransientFailure(failure.reason) || n > policy.maxRetries) throw fail(run, failure, n);
    if (failure.retryAfterMs !== undefined && failure.retryAfterMs > policy.maxRetryAfterMs) {
      throw fail(run, failure, n, failure.retryAfterMs);
    }
    const wait = failure.retryAfterMs ?? backoffMs(n, policy);
    run.logger.warn(
      { provider: run.provider, reason: failure.reason, status: failure.status, attempt: n, waitMs: wait },
      'model request failed, retrying',
    );
    try {
      await abortable(wait, signal);
    } catch {
      throw cancelled(n);
    }
  }
}
