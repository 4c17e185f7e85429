import { PullwrightError } from '@pullwright/core';

type LockWaitContext = {
  repo: string;
  /** What was waited for: file paths, or `merge` for the merge lock. */
  paths: string[];
  reason: 'timeout' | 'aborted';
  /** Holders seen at the last check, so a timeout can say whom it waited on. */
  heldBy: Array<{ path: string; opId: string; since: number }>;
};

/**
 * A wait for locks ended without them becoming free. A timeout is a `conflict` (someone
 * else still holds them); an abort is `cancelled` (our own operation gave up).
 */
export class LockWaitError extends PullwrightError<LockWaitContext> {
  constructor(context: LockWaitContext) {
    super(
      context.reason === 'aborted' ? 'cancelled' : 'conflict',
      context.reason === 'aborted'
        ? `wait for locks in ${context.repo} was aborted`
        : `locks in ${context.repo} still held after the wait timed out`,
      context,
    );
  }
}
