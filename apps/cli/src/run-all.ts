import { startApi } from '@pullwright/api';
import { startWorker } from '@pullwright/code-worker';
import type { EnvIssue } from '@pullwright/core';
import { DEMO_REFUSAL } from '@pullwright/pipeline';
import { boot } from './boot.ts';
import { seedDemo } from './demo-seed.ts';
import type { EmbeddedEnv } from './embedded-defaults.ts';
import { embeddedRedis } from './embedded-redis.ts';
import { onShutdown } from './on-shutdown.ts';
import { startSlackNotifier } from './start-slack-notifier.ts';

/** `npm start`: API, worker and dashboard in one process, on a private redis-server unless Redis is given. */
export async function runAll(embedded: EmbeddedEnv, warnings: EnvIssue[]): Promise<number> {
  const redis = embedded.needsRedis ? await embeddedRedis(embedded.env.DATA_DIR!) : undefined;
  const env = redis ? { ...embedded.env, REDIS_URL: redis.url } : embedded.env;
  try {
    const { runtime, logger, stopTracing } = await boot(env, 'all', { demo: embedded.replayDemo, warnings });
    if (embedded.replayDemo) logger.warn(DEMO_REFUSAL);
    const api = await startApi(runtime);
    const worker = await startWorker(runtime);
    const slack = startSlackNotifier(runtime);
    onShutdown(logger, async () => {
      await slack?.close();
      await worker.close();
      await api.close();
      await runtime.close();
      await redis?.stop();
      await stopTracing();
    });
    // The bundled recording answers the demo request only: one's own REPLAY_FILE seeds nothing.
    if (embedded.replayDemo && runtime.localForge) {
      const op = await seedDemo(runtime);
      logger.info({ opId: op.id }, 'demo operation enqueued');
    }
    const link = embedded.generatedToken ? `${api.url}/#token=${runtime.config.apiToken}` : api.url;
    const redisLine = redis ? `  Redis:     ${redis.url} (REDIS_URL for pullwright export and other tools)\n` : '';
    process.stdout.write(
      `\nPullwright is running.\n  Dashboard: ${link}\n  API:       ${api.url}/v1/operations (Authorization: Bearer <API_TOKEN>)\n${redisLine}  Stop with Ctrl-C.\n\n`,
    );
    return new Promise<number>(() => undefined);
  } catch (err) {
    // The private redis-server is our child: it must not outlive a failed start.
    await redis?.stop();
    throw err;
  }
}
