import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RedisServerHandle, startRedisServer } from '@pullwright/queue';

export const DEMO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../demo');
const DEMO_TRANSCRIPT = path.join(DEMO_DIR, 'debug-slugify.replay.json');

export interface EmbeddedEnv {
  env: NodeJS.ProcessEnv;
  redis: RedisServerHandle | undefined;
  generatedToken: boolean;
  /** No model configured: the bundled recording plays the demo, and new requests are refused. */
  replayDemo: boolean;
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
  const { env: withModel, replayDemo } = withReplayDefault(env);
  return { env: withModel, redis, generatedToken, replayDemo };
}

/**
 * With no model key and no LLM_PROVIDER, the replay provider plays the bundled demo
 * transcript (the demo repository's fix): `npm start` and a compose worker run out of the
 * box. `replayDemo` says so, for a warning.
 */
export function withReplayDefault(source: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; replayDemo: boolean } {
  const env = { ...source };
  const provider = env.LLM_PROVIDER?.trim();
  const keyed = (name: string) => env[name]?.trim() || env[`${name}_FILE`]?.trim();
  const hasModel = provider || keyed('ANTHROPIC_API_KEY') || keyed('OPENAI_API_KEY');
  if (!hasModel) env.LLM_PROVIDER = 'replay';
  const replayDemo = env.LLM_PROVIDER === 'replay' && !env.REPLAY_FILE?.trim();
  if (replayDemo) env.REPLAY_FILE = DEMO_TRANSCRIPT;
  return { env, replayDemo };
}
