import { defineLuaCommand } from '@pullwright/core';
import type { Cluster, Redis } from 'ioredis';

/** A single node or a Cluster: every script declares or derives keys of one hash slot. */
export type RedisClient = Redis | Cluster;

type Arg = string | number;

/** Script → its file beside this one; the file name carries the key count (`-n`: given per call). */
const SCRIPTS = {
  acquireFiles: 'acquire-files-n',
  renewFiles: 'renew-files-2',
  releaseFiles: 'release-files-2',
  fileHolders: 'file-holders-1',
  acquireLock: 'acquire-lock-2',
  renewLock: 'renew-lock-1',
  releaseLock: 'release-lock-1',
} as const;

type ScriptName = keyof typeof SCRIPTS;

export type LockScripts = Record<ScriptName, (keys: string[], args: Arg[]) => Promise<unknown>>;

/** Namespaced so another package's `defineCommand` on a shared client cannot shadow ours. */
const command = (name: ScriptName) => `pwLocks_${name}`;

/** The lock scripts bound to one client (defined on it once). */
export function lockScripts(redis: RedisClient): LockScripts {
  const commands = redis as unknown as Record<string, (...args: Arg[]) => Promise<unknown>>;
  const names = Object.keys(SCRIPTS) as ScriptName[];
  return Object.fromEntries(
    names.map((name) => {
      const numberOfKeys = defineLuaCommand(redis, command(name), new URL(`./${SCRIPTS[name]}.lua`, import.meta.url));
      const call = commands[command(name)]!.bind(redis);
      return [
        name,
        (keys: string[], args: Arg[]) =>
          numberOfKeys === undefined ? call(keys.length, ...keys, ...args) : call(...keys, ...args),
      ];
    }),
  ) as LockScripts;
}
