import { readFileSync } from 'node:fs';

/**
 * What a Redis client (ioredis' Redis or Cluster) offers to define a script as a command.
 * Structural, so core needs no Redis client of its own.
 */
interface LuaCommandHost {
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number }): void;
}

const sources = new Map<string, string>();
const defined = new WeakMap<LuaCommandHost, Set<string>>();

/**
 * The key count a script's file name declares: `update-operation-4.lua` takes 4 keys;
 * `acquire-files-n.lua` a count the caller passes first on every call (undefined).
 */
export function luaKeyCount(file: URL): number | undefined {
  const match = /-(\d+|n)\.lua$/.exec(file.pathname);
  if (!match?.[1]) throw new Error(`${file.pathname}: a Lua script is named <name>-<numKeys>.lua (or -n.lua)`);
  return match[1] === 'n' ? undefined : Number(match[1]);
}

/**
 * Defines the Lua script in `file` as `command` on `redis`, once per client: ioredis then
 * sends EVALSHA, and EVAL after a SCRIPT FLUSH or a failover. The key count comes from the
 * file name (`<name>-<numKeys>.lua`, as bullmq names its scripts), so it is written once.
 * Returns it (undefined: the caller passes the count before the keys).
 */
export function defineLuaCommand(redis: LuaCommandHost, command: string, file: URL): number | undefined {
  const numberOfKeys = luaKeyCount(file);
  const commands = defined.get(redis) ?? new Set<string>();
  if (!commands.has(command)) {
    let lua = sources.get(file.href);
    if (lua === undefined) {
      lua = readFileSync(file, 'utf8');
      sources.set(file.href, lua);
    }
    redis.defineCommand(command, numberOfKeys === undefined ? { lua } : { lua, numberOfKeys });
    commands.add(command);
    defined.set(redis, commands);
  }
  return numberOfKeys;
}
