import { describe, expect, it } from 'vitest';
import { PullwrightError } from './errors.ts';
import { isRedisUnavailable, isTransientError } from './transient-errors.ts';

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
    ['a connect timeout', new Error('connect ETIMEDOUT 10.0.0.5:6379'), true],
    ['a Cluster resharding', new Error('TRYAGAIN Multiple keys request during rehashing of slot'), true],
    [
      'a stream that cannot be written',
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      true,
    ],
    ['a non-error', 'ECONNREFUSED', false],
  ])('%s → %s', (_name, err, expected) => {
    expect(isTransientError(err)).toBe(expected);
    // A Redis outage is the only untyped transient error: the API answers 503 for the same set.
    if (!(err instanceof PullwrightError)) expect(isRedisUnavailable(err)).toBe(expected);
  });
});
