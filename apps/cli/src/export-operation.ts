import { existsSync } from 'node:fs';
import path from 'node:path';
import { storageSettings } from '@pullwright/core';
import { auditTrail } from '@pullwright/queue';
import { boot } from './boot.ts';
import { embeddedRedis } from './embedded-redis.ts';

const isSet = (env: NodeJS.ProcessEnv, name: string) => Boolean(env[name]?.trim());

/**
 * `pullwright export <id>`: what GET /v1/operations/:id/audit serves, straight from Redis:
 * REDIS_URL or REDIS_CLUSTER_NODES, else the Redis of `npm start` on DATA_DIR (the one a
 * running `npm start` recorded, or its data read by a private redis-server for the export).
 */
export async function exportOperation(args: string[], source: NodeJS.ProcessEnv): Promise<number> {
  const id = args[0];
  if (!id || args.length > 1) {
    process.stderr.write('usage: pullwright export <operation id>   (JSONL on standard output)\n');
    return 2;
  }
  const { dataDir } = storageSettings.schema.parse(source);
  const given = isSet(source, 'REDIS_URL') || isSet(source, 'REDIS_CLUSTER_NODES');
  if (!given && !existsSync(path.join(dataDir, 'redis'))) {
    process.stderr.write(
      `pullwright export: no Redis: set REDIS_URL (or REDIS_CLUSTER_NODES) to the service's Redis, or DATA_DIR to where \`npm start\` keeps its data (${dataDir} holds none)\n`,
    );
    return 1;
  }
  const redis = given ? undefined : await embeddedRedis(dataDir);
  try {
    const env = { ...source, ...(redis ? { REDIS_URL: redis.url } : {}), LOG_LEVEL: source.LOG_LEVEL || 'silent' };
    const { runtime } = await boot(env, 'all', { runtimeRole: 'api' });
    try {
      const redact = (text: string) => runtime.redactor.redact(text);
      for await (const line of auditTrail({ ...runtime, redact }, id)) {
        if (!process.stdout.write(line)) await new Promise((r) => process.stdout.once('drain', r));
      }
      return 0;
    } finally {
      await runtime.close();
    }
  } finally {
    await redis?.stop();
  }
}
