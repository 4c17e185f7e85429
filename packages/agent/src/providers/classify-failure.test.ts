import { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { classifyFailure, retryAfterMs, UpstreamProtocolError } from './classify-failure.ts';

const SDK = { connectionError: APIConnectionError, timeoutError: APIConnectionTimeoutError };

describe('retryAfterMs', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  it.each([
    { headers: { 'retry-after': '1' }, ms: 1000 },
    { headers: { 'retry-after': '0.5' }, ms: 500 },
    { headers: { 'retry-after-ms': '250', 'retry-after': '9' }, ms: 250 },
    { headers: { 'retry-after': 'Sun, 22 Nov 2026 10:00:03 GMT' }, ms: 3000 },
    // Unusable values fall back to our own backoff.
    { headers: { 'retry-after': '0' }, ms: undefined },
    { headers: { 'retry-after': '-3' }, ms: undefined },
    { headers: { 'retry-after': 'soon' }, ms: undefined },
    { headers: { 'retry-after': 'Sun, 22 Nov 2026 09:00:00 GMT' }, ms: undefined },
    { headers: { 'retry-after-ms': 'NaN' }, ms: undefined },
    { headers: {}, ms: undefined },
  ])('$headers → $ms', ({ headers, ms }) => {
    expect(retryAfterMs(new Headers(headers), now)).toBe(ms);
  });

  it('ignores something that is not a Headers object', () => {
    expect(retryAfterMs({ 'retry-after': '1' })).toBeUndefined();
  });
});

describe('classifyFailure', () => {
  function status(code: number, type = 'api_error') {
    return new APIError(
      code,
      { type: 'error', error: { type, message: 'x' } },
      undefined,
      new Headers({ 'retry-after': '2' }),
    );
  }

  it.each([
    { err: status(401, 'authentication_error'), reason: 'auth' },
    { err: status(403, 'permission_error'), reason: 'auth' },
    { err: status(400, 'invalid_request_error'), reason: 'bad_request' },
    { err: status(404, 'not_found_error'), reason: 'bad_request' },
    // The model gateway's refusal past the operation's budget.
    { err: status(402, 'budget_exceeded_error'), reason: 'budget' },
    { err: status(408), reason: 'timeout' },
    { err: status(409), reason: 'server_error' },
    { err: status(429, 'rate_limit_error'), reason: 'rate_limited' },
    { err: status(500), reason: 'server_error' },
    { err: status(503), reason: 'overloaded' },
    { err: status(529, 'overloaded_error'), reason: 'overloaded' },
    // Mid-stream `event: error` has no status, only the body type.
    {
      err: new APIError(
        undefined,
        { type: 'error', error: { type: 'overloaded_error', message: 'o' } },
        undefined,
        undefined,
      ),
      reason: 'overloaded',
    },
    { err: new APIConnectionTimeoutError(), reason: 'timeout' },
    { err: new APIConnectionError({ cause: new Error('ECONNRESET') }), reason: 'connection' },
    { err: new TypeError('terminated'), reason: 'connection' },
    { err: new UpstreamProtocolError('connection', 'stream ended before message_stop'), reason: 'connection' },
    { err: new UpstreamProtocolError('invalid_response', 'bad'), reason: 'invalid_response' },
    { err: new RangeError('bug in our mapping'), reason: 'invalid_response' },
  ])('$err.name $err.message → $reason', ({ err, reason }) => {
    expect(classifyFailure(err, SDK).reason).toBe(reason);
  });

  it('carries the status and the retry-after of an HTTP failure', () => {
    expect(classifyFailure(status(429, 'rate_limit_error'), SDK)).toMatchObject({ status: 429, retryAfterMs: 2000 });
  });
});
