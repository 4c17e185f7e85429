import type { Logger } from '@pullwright/core';

/**
 * Runs `close` once on SIGINT or SIGTERM, then exits 0. The log says when the stop began
 * (with the signal) and when it ended, so an operator can tell a clean stop from a kill.
 */
export function onShutdown(logger: Logger, close: () => Promise<void>): void {
  let closing = false;
  const handler = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    const started = Date.now();
    logger.info({ signal }, 'shutting down');
    close()
      .then(
        () => logger.info({ durationMs: Date.now() - started }, 'stopped'),
        (err: unknown) => logger.error({ err }, 'stopped with an error'),
      )
      .finally(() => process.exit(0));
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}
