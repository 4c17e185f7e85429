import { setTimeout as sleep } from 'node:timers/promises';

interface EventuallyOptions {
  /**
   * How long the condition may take to come true. Derive it from the work awaited (an
   * operation's whole run, a lease) with room for a loaded machine: the wait ends as soon as
   * the condition holds, so a generous bound costs nothing when things go well.
   */
  timeoutMs?: number;
  /** Between two probes. */
  intervalMs?: number;
}

/**
 * Polls `probe` until it returns a value other than `undefined` or `false`, and returns that
 * value: the one way tests wait for something that must come true. On timeout it throws
 * `what` (evaluated then, so it can show the last state seen); an error the probe throws ends
 * the wait at once. Waiting to prove that something does *not* happen is not what this is
 * for: move a clock, or wait for the event that shows the work is over.
 *
 * Plain timers, no vitest import: global setups, chaos workers and benches use it too
 * (vitest's `vi.waitFor` needs a test worker, and retries a probe's own errors).
 */
export async function eventually<T>(
  what: string | (() => string | Promise<string>),
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 30_000, intervalMs = 50 }: EventuallyOptions = {},
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - started >= timeoutMs) {
      const described = typeof what === 'string' ? what : await what();
      throw new Error(`timed out after ${Date.now() - started} ms waiting until ${described}`);
    }
    await sleep(intervalMs);
  }
}
