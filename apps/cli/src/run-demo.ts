import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApi } from '@pullwright/api';
import { startWorker } from '@pullwright/code-worker';
import { boot } from './boot.ts';
import { seedDemo } from './demo-seed.ts';
import { embeddedEnv } from './embedded-defaults.ts';
import { embeddedRedis } from './embedded-redis.ts';
import { printTimeline, waitForStatus } from './timeline.ts';

/**
 * `npm run demo`: the start flow headless, in a temporary DATA_DIR (removed at the end)
 * unless one is given: the sample /debug operation, its approval and merge, its timeline.
 */
export async function runDemo(source: NodeJS.ProcessEnv): Promise<number> {
  const temporary = !source.DATA_DIR?.trim();
  const dataDir = temporary ? mkdtempSync(path.join(os.tmpdir(), 'pullwright-demo-')) : source.DATA_DIR!;
  try {
    return await demoIn({ ...source, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: source.LOG_LEVEL || 'warn' });
  } finally {
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
  }
}

async function demoIn(source: NodeJS.ProcessEnv): Promise<number> {
  const embedded = embeddedEnv(source);
  const redis = embedded.needsRedis ? await embeddedRedis(embedded.env.DATA_DIR!) : undefined;
  const env = redis ? { ...embedded.env, REDIS_URL: redis.url } : embedded.env;
  try {
    const { runtime } = await boot(env, 'all', { demo: embedded.replayDemo });
    const api = await startApi(runtime);
    const worker = await startWorker(runtime);
    try {
      const op = await seedDemo(runtime);
      process.stdout.write(`operation ${op.id}: ${op.type} on ${op.repo}\n`);
      const ready = await waitForStatus(runtime, op.id, ['awaiting_approval', 'failed', 'cancelled'], 120_000);
      if (ready.status === 'awaiting_approval') {
        process.stdout.write(
          `pull request #${ready.pullRequest?.number} is awaiting approval; approving ${ready.pullRequest?.headSha.slice(0, 12)}\n`,
        );
        await runtime.actions.approve(op.id, { user: 'demo', source: 'api' }, ready.pullRequest?.headSha);
      }
      const final = await waitForStatus(runtime, op.id, ['merged', 'failed', 'cancelled', 'rejected'], 60_000);
      await printTimeline(runtime, op.id, process.stdout);
      return final.status === 'merged' ? 0 : 1;
    } finally {
      await worker.close();
      await api.close();
      await runtime.close();
    }
  } finally {
    await redis?.stop();
  }
}
