/** Job starts (BullMQ `attemptsStarted`, crashes included) after which a transient error is final. */
export const MAX_JOB_STARTS = 8;

/**
 * Exponential backoff before run `attempt + 1`: 2 s, 4 s, 8 s … capped at 5 min, with ±20 %
 * jitter so the jobs of a Redis outage do not all come back in the same second.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(5 * 60_000, 2000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}
