/** Runs `close` once on SIGINT or SIGTERM, then exits 0. */
export function onShutdown(close: () => Promise<void>): void {
  let closing = false;
  const handler = () => {
    if (closing) return;
    closing = true;
    close().finally(() => process.exit(0));
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}
