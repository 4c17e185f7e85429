import { startApi } from '@pullwright/api';
import type { EnvIssue } from '@pullwright/core';
import { boot } from './boot.ts';
import { onShutdown } from './on-shutdown.ts';
import { startSlackNotifier } from './start-slack-notifier.ts';

/** `pullwright api`: the API alone. It runs no repository code: it starts without a sandbox on hosts that have none. */
export async function runApi(env: NodeJS.ProcessEnv, warnings: EnvIssue[]): Promise<number> {
  const { runtime, logger, stopTracing } = await boot(env, 'api', { warnings });
  const api = await startApi(runtime);
  const slack = startSlackNotifier(runtime);
  onShutdown(logger, async () => {
    await slack?.close();
    await api.close();
    await runtime.close();
    await stopTracing();
  });
  logger.info({ url: api.url }, 'api listening');
  return new Promise<number>(() => undefined);
}
