import path from 'node:path';

/** The demo's recorded /debug of slugify: the model every end-to-end bench replays. */
export const TRANSCRIPT = path.resolve(import.meta.dirname, '../../apps/cli/demo/debug-slugify.replay.json');

/** The environment of a bench's service: its own Redis prefix and data directory, the replayed model, one job per worker. */
export function benchEnv(redisUrl: string, prefix: string, dataDir: string): Record<string, string> {
  return {
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    VERIFICATION_KEY: 'bench-verification-key-0123456789',
    DATA_DIR: dataDir,
    LLM_PROVIDER: 'replay',
    REPLAY_FILE: TRANSCRIPT,
    WORKER_CONCURRENCY: '1',
    LOG_LEVEL: 'silent',
  };
}
