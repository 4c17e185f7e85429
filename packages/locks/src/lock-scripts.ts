import { readFileSync } from 'node:fs';
import type { Cluster, Redis } from 'ioredis';

/** A single node or a Cluster: every script declares or derives keys of one hash slot. */
export type RedisClient = Redis | Cluster;

type Arg = string | number;

/** Script → its file beside this one and its declared key count (undefined: variable, given per call). */
const SCRIPTS = {
  acquireFiles: { file: 'acquire-files-n', numberOfKeys: undefined },
  renewFiles: { file: 'renew-files-2', numberOfKeys: 2 },
  releaseFiles: { file: 'release-files-2', numberOfKeys: 2 },
  fileHolders: { file: 'file-holders-1', numberOfKeys: 1 },
  acquireLock: { file: 'acquire-lock-2', numberOfKeys: 2 },
  renewLock: { file: 'renew-lock-1', numberOfKeys: 1 },
  releaseLock: { file: 'release-lock-1', numberOfKeys: 1 },
} as const;

type ScriptName = keyof typeof SCRIPTS;

export type LockScripts = Record<ScriptName, (keys: string[], args: Arg[]) => Promise<unknown>>;

const SOURCES = Object.fromEntries(
  Object.entries(SCRIPTS).map(([name, { file }]) => [
    name,
    readFileSync(new URL(`./${file}.lua`, import.meta.url), 'utf8'),
  ]),
) as Record<ScriptName, string>;

const defined = new WeakSet<RedisClient>();

/** Namespaced so another package's `defineCommand` on a shared client cannot shadow ours. */
const command = (name: ScriptName) => `pwLocks_${name}`;

/**
 * The lock scripts bound to one client. `defineCommand` runs once per client; ioredis then
 * sends EVALSHA and falls back to EVAL after a SCRIPT FLUSH or a failover.
 */
export function lockScripts(redis: RedisClient): LockScripts {
  const names = Object.keys(SCRIPTS) as ScriptName[];
  if (!defined.has(redis)) {
    for (const name of names) {
      const { numberOfKeys } = SCRIPTS[name];
      const lua = SOURCES[name];
      redis.defineCommand(command(name), numberOfKeys === undefined ? { lua } : { lua, numberOfKeys });
    }
    defined.add(redis);
  }
  const commands = redis as unknown as Record<string, (...args: Arg[]) => Promise<unknown>>;
  return Object.fromEntries(
    names.map((name) => [
      name,
      (keys: string[], args: Arg[]) =>
        SCRIPTS[name].numberOfKeys === undefined
          ? commands[command(name)]!(keys.length, ...keys, ...args)
          : commands[command(name)]!(...keys, ...args),
    ]),
  ) as LockScripts;
}
