import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The files `init-secrets` keeps, read by the services through `*_FILE` variables. */
const SECRET_FILES = ['api-token', 'verification-key', 'redis-password'] as const;

/**
 * `pullwright init-secrets <dir>`: the compose stack's first step. Creates each missing
 * secret (32 random bytes, base64url) in `dir`, and `redis.conf` with the Redis password for
 * the Redis container to include. Existing files are kept, so a restart changes nothing.
 * Mode 0644: the Redis container runs as another user; the directory is a volume only
 * Pullwright's containers mount, and the worker's sandbox hides /run.
 */
export function initSecrets(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const created: string[] = [];
  for (const name of SECRET_FILES) {
    const file = path.join(dir, name);
    if (existsSync(file)) continue;
    writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o644 });
    created.push(name);
  }
  const password = readFileSync(path.join(dir, 'redis-password'), 'utf8').trim();
  writeFileSync(path.join(dir, 'redis.conf'), `requirepass ${password}\n`, { mode: 0o644 });
  return created;
}
