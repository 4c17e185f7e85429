import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The files every service reads, through `*_FILE` variables. `worker-token` authorizes the
 * API's internal routes (credential broker, model gateway) only, never the REST API.
 */
const SHARED_SECRETS = ['verification-key', 'redis-password', 'worker-token'] as const;
/** The API's own: workers never mount the directory it is kept in. */
const API_TOKEN = 'api-token';

function create(file: string, created: string[]): void {
  if (existsSync(file)) return;
  writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o644 });
  created.push(path.basename(file));
}

/**
 * `pullwright init-secrets <dir> [<api-dir>]`: the compose stack's first step. Creates each
 * missing secret (32 random bytes, base64url): the verification key, the Redis password and
 * the worker token in `dir`, with `redis.conf` for the Redis container to include, and the API token in
 * `api-dir` (default `dir`), which only the API mounts. A token an older layout kept in
 * `dir` moves to `api-dir`, so it keeps working and leaves the workers' reach. Existing files
 * are kept, so a restart changes nothing. Mode 0644: the Redis container runs as another
 * user; the directories are volumes only Pullwright's containers mount, and the worker's
 * sandbox hides /run.
 */
export function initSecrets(dir: string, apiDir = dir): string[] {
  mkdirSync(dir, { recursive: true });
  mkdirSync(apiDir, { recursive: true });
  const created: string[] = [];
  for (const name of SHARED_SECRETS) create(path.join(dir, name), created);
  const token = path.join(apiDir, API_TOKEN);
  const earlier = path.join(dir, API_TOKEN);
  if (apiDir !== dir && existsSync(earlier) && !existsSync(token)) renameSync(earlier, token);
  create(token, created);
  const password = readFileSync(path.join(dir, 'redis-password'), 'utf8').trim();
  writeFileSync(path.join(dir, 'redis.conf'), `requirepass ${password}\n`, { mode: 0o644 });
  return created;
}
