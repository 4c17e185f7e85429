/**
 * Ends a job early with the reason a person needs. Thrown by any step or gate; the job
 * frame catches it once and lets the job end the operation (see `JobDefinition.stop`).
 */
export class StopOperation extends Error {
  constructor(
    /** `failed` for a refusal or an error, `cancelled` for a stop someone asked for. */
    readonly status: 'failed' | 'cancelled',
    readonly reason: string,
    /** What kind of failure (an agent outcome: `budget`, `checks_failed`…): picks the failure report's recommendation. */
    readonly kind?: string,
  ) {
    super(reason);
  }
}
