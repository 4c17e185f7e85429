/** Seed 001: "Max 100 file operations per minute per session" (FILE_OPS_PER_MINUTE). */
export const DEFAULT_FILE_OPS_PER_MINUTE = 100;
const WINDOW_MS = 60_000;

/**
 * A sliding one-minute window over one job's file operations. `take` records an operation
 * and returns undefined, or, when `limit` were already taken in the last minute, records
 * nothing and returns how long until the oldest leaves the window.
 */
export class FileOperationRate {
  /** Times of the operations in the window, oldest first. */
  readonly #times: number[] = [];

  constructor(
    readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  take(): number | undefined {
    const now = this.now();
    while (this.#times.length > 0 && this.#times[0]! <= now - WINDOW_MS) this.#times.shift();
    if (this.#times.length >= this.limit) return this.#times[0]! + WINDOW_MS - now;
    this.#times.push(now);
    return undefined;
  }
}
