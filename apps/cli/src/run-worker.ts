import { startWorker, startWorkerHealthServer } from '@pullwright/code-worker';
import type { EnvIssue } from '@pullwright/core';
import { DEMO_REFUSAL } from '@pullwright/pipeline';
import { boot } from './boot.ts';
import { onShutdown } from './on-shutdown.ts';

/** `pullwright worker`: a code worker alone, with its health server on WORKER_PORT. */
export async function runWorker(env: NodeJS.ProcessEnv, warnings: EnvIssue[], replayDemo: boolean): Promise<number> {
  const { runtime, logger, stopTracing } = await boot(env, 'worker', { demo: replayDemo, warnings });
  if (replayDemo) logger.warn(DEMO_REFUSAL);
  const worker = await startWorker(runtime);
  const health = await startWorkerHealthServer(runtime, worker);
  onShutdown(logger, async () => {
    await worker.close();
    await health.close();
    await runtime.close();
    await stopTracing();
  });
  logger.info({ concurrency: runtime.config.workerConcurrency, health: health.url }, 'worker started');
  return new Promise<number>(() => undefined);
}
