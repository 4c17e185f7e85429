import { PullwrightError } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { isTransientError, retryDelayMs } from './transient-errors.ts';

describe('isTransientError', () => {
  const redisDown = new Error(
    'Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest"',
  );
  redisDown.name = 'MaxRetriesPerRequestError';
  it.each([
    ['unavailable (outcome retry)', new PullwrightError('unavailable', 'model API is down'), true],
    ['ioredis max retries', redisDown, true],
    ['connection closed', new Error('Connection is closed.'), true],
    ['refused', new Error('connect ECONNREFUSED 127.0.0.1:6379'), true],
    ['Redis loading its AOF', new Error('LOADING Redis is loading the dataset in memory'), true],
    ['failover', new Error("READONLY You can't write against a read only replica."), true],
    ['secret finding', new PullwrightError('secret_found', 'a secret in src/config.ts'), false],
    ['failed check', new PullwrightError('check_failed', 'test exited with 1'), false],
    ['bad request', new PullwrightError('validation_failed', 'bad'), false],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'x')"), false],
    ['a non-error', 'ECONNREFUSED', false],
  ])('%s → %s', (_name, err, expected) => {
    expect(isTransientError(err)).toBe(expected);
  });
});

describe('retryDelayMs', () => {
  it('doubles from 2 s, caps at 5 min, and jitters by at most 20 %', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, mid))).toEqual([2000, 4000, 8000, 16000]);
    expect(retryDelayMs(30, mid)).toBe(300_000);
    expect(retryDelayMs(1, () => 0)).toBe(1600);
    expect(retryDelayMs(1, () => 1)).toBe(2400);
  });
});
