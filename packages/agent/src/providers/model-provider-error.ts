import { type ErrorCode, PullwrightError } from '@pullwright/core';

/**
 * Why a model call failed. The first five are transient (the provider retries them, then
 * gives up with `unavailable` so the job can be retried later); the rest are final.
 */
export type ProviderFailureReason =
  | 'rate_limited'
  | 'overloaded'
  | 'server_error'
  | 'timeout'
  | 'connection'
  | 'cancelled'
  | 'auth'
  | 'bad_request'
  | 'invalid_response'
  /** The model gateway refused the call: it would cross the operation's budget. */
  | 'budget';

/** The error `type` (and HTTP 402) the model gateway answers a call past the operation's budget with. */
export const BUDGET_ERROR_TYPE = 'budget_exceeded_error';

const TRANSIENT: ReadonlySet<ProviderFailureReason> = new Set([
  'rate_limited',
  'overloaded',
  'server_error',
  'timeout',
  'connection',
]);

export function isTransientFailure(reason: ProviderFailureReason): boolean {
  return TRANSIENT.has(reason);
}

function codeFor(reason: ProviderFailureReason): ErrorCode {
  if (reason === 'cancelled') return 'cancelled';
  if (reason === 'budget') return 'budget_exhausted';
  return isTransientFailure(reason) ? 'unavailable' : 'agent_failed';
}

interface ModelProviderErrorContext extends Record<string, unknown> {
  provider: string;
  reason: ProviderFailureReason;
  /** HTTP status of the last attempt, when there was one. */
  status: number | undefined;
  attempts: number;
  /** What the server asked us to wait, when it asked for longer than we are willing to. */
  retryAfterMs: number | undefined;
}

/**
 * A model call that did not produce a response. The message is already redacted: it
 * never carries the API key, even when an upstream proxy echoes request headers back.
 */
export class ModelProviderError extends PullwrightError<ModelProviderErrorContext> {
  constructor(message: string, context: ModelProviderErrorContext) {
    super(codeFor(context.reason), message, context);
  }

  get reason(): ProviderFailureReason {
    return this.context.reason;
  }
}
