import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { storageSettings } from '@pullwright/core';

export const DEMO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../demo');
const DEMO_TRANSCRIPT = path.join(DEMO_DIR, 'debug-slugify.replay.json');

export interface EmbeddedEnv {
  env: NodeJS.ProcessEnv;
  /** Neither REDIS_URL nor REDIS_CLUSTER_NODES: `npm start` runs a private redis-server. */
  needsRedis: boolean;
  generatedToken: boolean;
  /** No model configured: the bundled recording plays the demo, and new requests are refused. */
  replayDemo: boolean;
}

const isSet = (env: NodeJS.ProcessEnv, name: string) => Boolean(env[name]?.trim());

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
 * Fills what a laptop run lacks: an API token, and the replay provider with the bundled demo
 * transcript when no model key is set; says whether a private redis-server is needed (a
 * Cluster or a REDIS_URL is used as given). Anything set in the environment wins.
 */
export function embeddedEnv(source: NodeJS.ProcessEnv): EmbeddedEnv {
  const env = { ...source };
  const { dataDir } = storageSettings.schema.parse(env);
  env.DATA_DIR = dataDir;
  const generatedToken = !isSet(env, 'API_TOKEN') && !isSet(env, 'API_TOKEN_FILE');
  if (generatedToken) env.API_TOKEN = persistentToken(dataDir);
  const { env: withModel, replayDemo } = withReplayDefault(env);
  const needsRedis = !isSet(env, 'REDIS_URL') && !isSet(env, 'REDIS_CLUSTER_NODES');
  return { env: withModel, needsRedis, generatedToken, replayDemo };
}

/**
 * With no model key and no LLM_PROVIDER, the replay provider plays the bundled demo
 * transcript (the demo repository's fix): `npm start` and a compose worker run out of the
 * box. `replayDemo` says so, for a warning.
 */
export function withReplayDefault(source: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; replayDemo: boolean } {
  const env = { ...source };
  const keyed = (name: string) => isSet(env, name) || isSet(env, `${name}_FILE`);
  const hasModel = isSet(env, 'LLM_PROVIDER') || keyed('ANTHROPIC_API_KEY') || keyed('OPENAI_API_KEY');
  if (!hasModel) env.LLM_PROVIDER = 'replay';
  const replayDemo = env.LLM_PROVIDER === 'replay' && !isSet(env, 'REPLAY_FILE');
  if (replayDemo) env.REPLAY_FILE = DEMO_TRANSCRIPT;
  return { env, replayDemo };
}
