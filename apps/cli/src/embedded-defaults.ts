import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RedisServerHandle, startRedisServer } from '@pullwright/queue';

export const DEMO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../demo');
const DEMO_TRANSCRIPT = path.join(DEMO_DIR, 'debug-slugify.replay.json');

interface EmbeddedEnv {
  env: NodeJS.ProcessEnv;
  redis: RedisServerHandle | undefined;
  generatedToken: boolean;
}

/** Reuses the token across restarts so a bookmarked dashboard link keeps working. */
function persistentToken(dataDir: string): string {
  const file = path.join(dataDir, 'api-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, token, { mode: 0o600 });
  return token;
}

/**
 * Fills what a laptop run lacks: a private redis-server (data under DATA_DIR), an API
 * token, and the replay provider with the bundled demo transcript when no model key is set.
 * Anything set in the environment wins.
 */
export async function embeddedEnv(source: NodeJS.ProcessEnv): Promise<EmbeddedEnv> {
  const env = { ...source };
  const dataDir = path.resolve(env.DATA_DIR || '.pullwright');
  env.DATA_DIR = dataDir;
  let redis: RedisServerHandle | undefined;
  if (!env.REDIS_URL) {
    redis = await startRedisServer({ dataDir: path.join(dataDir, 'redis') });
    env.REDIS_URL = redis.url;
  }
  const generatedToken = !env.API_TOKEN;
  if (generatedToken) env.API_TOKEN = persistentToken(dataDir);
  const hasModel = env.LLM_PROVIDER || env.ANTHROPIC_API_KEY || env.OPENAI_API_KEY;
  if (!hasModel) {
    env.LLM_PROVIDER = 'replay';
    env.REPLAY_FILE ||= DEMO_TRANSCRIPT;
  }
  return { env, redis, generatedToken };
}
