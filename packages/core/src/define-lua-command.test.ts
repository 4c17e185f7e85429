import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defineLuaCommand, luaKeyCount } from './define-lua-command.ts';

describe('defineLuaCommand', () => {
  it('reads the key count from the file name: a number, or n for one given per call', () => {
    expect(luaKeyCount(new URL('file:///x/update-operation-4.lua'))).toBe(4);
    expect(luaKeyCount(new URL('file:///x/acquire-files-n.lua'))).toBeUndefined();
    expect(() => luaKeyCount(new URL('file:///x/update-operation.lua'))).toThrow(/<name>-<numKeys>\.lua/);
  });

  it('defines each script once per client, with the file’s source and key count', () => {
    const calls: [string, { lua: string; numberOfKeys?: number }][] = [];
    const client = {
      defineCommand: (name: string, def: { lua: string; numberOfKeys?: number }) => calls.push([name, def]),
    };
    const file = pathToFileURL(path.join(mkdtempSync(path.join(os.tmpdir(), 'pw-lua-')), 'renew-lock-1.lua'));
    writeFileSync(file, 'return redis.call("PEXPIRE", KEYS[1], ARGV[1])\n');
    expect(defineLuaCommand(client, 'renew', file)).toBe(1);
    expect(defineLuaCommand(client, 'renew', file)).toBe(1);
    expect(calls).toHaveLength(1);
    expect(calls[0]![1]).toMatchObject({ numberOfKeys: 1, lua: expect.stringContaining('PEXPIRE') });
    defineLuaCommand({ defineCommand: (name, def) => calls.push([name, def]) }, 'renew', file);
    expect(calls).toHaveLength(2);
  });
});
