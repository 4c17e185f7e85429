import { describeOutcome, type Outcome, outcomeStatus } from '@pullwright/core';

/**
 * Ends a job early with how it ended, as data. Thrown by any step or gate; the job frame
 * catches it once and lets the job end the operation (see `JobDefinition.stop`).
 */
export class StopOperation extends Error {
  constructor(readonly outcome: Outcome) {
    super(describeOutcome(outcome));
  }

  /** `failed` for a refusal or an error, `cancelled` for a stop someone asked for. */
  get status(): 'failed' | 'cancelled' {
    return outcomeStatus(this.outcome) === 'cancelled' ? 'cancelled' : 'failed';
  }

  /** The human sentence (`describeOutcome`). */
  get reason(): string {
    return this.message;
  }
}
