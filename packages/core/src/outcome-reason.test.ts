import { describe, expect, it } from 'vitest';
import { outcomeReason } from './outcome-reason.ts';

describe('outcomeReason: a bounded label for how an operation ended', () => {
  it.each([
    ['merged', undefined, 'merged'],
    ['rejected', 'rejected by alice: no', 'rejected'],
    ['cancelled', 'cancelled by U123', 'requested'],
    ['cancelled', 'no one confirmed the plan: timed out after 1 h', 'timeout'],
    ['failed', 'internal error: Cannot read properties of undefined', 'internal'],
    ['failed', 'commit blocked: the secret scan failed: rule github-pat in a.js:1', 'secret_found'],
    ['failed', 'budget exhausted: cost $5.10 of $5.00', 'budget'],
    ['failed', 'api:bob may not request operations: that needs the proposer role', 'forbidden'],
    ['failed', 'pull request #3 is not mergeable', 'conflict'],
    ['failed', 'the model made no changes', 'no_change'],
    ['failed', 'test failed (exit 1): 2 new failures', 'checks_failed'],
    ['failed', 'base branch trunk does not exist in acme/x', 'not_found'],
    ['failed', 'something nobody foresaw', 'other'],
    ['failed', undefined, 'other'],
  ] as const)('%s %j → %s', (status, error, reason) => {
    expect(outcomeReason(status, error)).toBe(reason);
  });
});
