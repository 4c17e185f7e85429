import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DependencyCache } from './dependency-cache.ts';

describe('DependencyCache', () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'pw-deps-'));
  });
  afterEach(() => rm(tmp, { recursive: true, force: true }));

  const spec = { repo: 'acme/app', command: 'npm ci --no-audit', lockfile: '{"v":1}', manifest: '{"name":"app"}' };
  /** A worktree after an install: node_modules with one package. */
  async function installed(name: string, content: string): Promise<string> {
    const dir = path.join(tmp, name);
    await mkdir(path.join(dir, 'node_modules', 'left-pad'), { recursive: true });
    await writeFile(path.join(dir, 'node_modules', 'left-pad', 'index.js'), content);
    return dir;
  }

  it('restores a tree only for the same repository, lock file, manifest and command', async () => {
    const cache = new DependencyCache(path.join(tmp, 'cache'));
    const key = cache.keyOf(spec)!;
    const fresh = path.join(tmp, 'fresh');
    await mkdir(fresh);
    expect(await cache.restore(key, fresh)).toBe(false);
    await cache.store(key, await installed('first', 'v1'));
    expect(await cache.restore(key, fresh)).toBe(true);
    expect(await readFile(path.join(fresh, 'node_modules', 'left-pad', 'index.js'), 'utf8')).toBe('v1');

    for (const other of [
      { ...spec, lockfile: '{"v":2}' },
      { ...spec, manifest: '{"name":"app","scripts":{"postinstall":"x"}}' },
      { ...spec, command: 'npm install' },
      { ...spec, repo: 'acme/other' },
    ]) {
      expect(cache.keyOf(other)).not.toBe(key);
      expect(await cache.restore(cache.keyOf(other)!, path.join(tmp, 'fresh'))).toBe(false);
    }
    expect(cache.keyOf({ ...spec, command: 'pip install -r requirements.txt' })).toBeUndefined();
  });

  it('copies, never links: a test that writes into its node_modules cannot change the next restore', async () => {
    const cache = new DependencyCache(path.join(tmp, 'cache'));
    const key = cache.keyOf(spec)!;
    await cache.store(key, await installed('first', 'v1'));
    const a = path.join(tmp, 'a');
    await mkdir(a);
    await cache.restore(key, a);
    await writeFile(path.join(a, 'node_modules', 'left-pad', 'index.js'), 'poisoned');
    const b = path.join(tmp, 'b');
    await mkdir(b);
    await cache.restore(key, b);
    expect(await readFile(path.join(b, 'node_modules', 'left-pad', 'index.js'), 'utf8')).toBe('v1');
  });

  it('keeps at most maxEntries trees, dropping the least recently used', async () => {
    const cache = new DependencyCache(path.join(tmp, 'cache'), 2);
    const keys = ['1', '2', '3'].map((v) => cache.keyOf({ ...spec, lockfile: v })!);
    await cache.store(keys[0]!, await installed('one', '1'));
    await cache.store(keys[1]!, await installed('two', '2'));
    await cache.restore(keys[0]!, await installed('use', 'x')); // the first is used again
    await cache.store(keys[2]!, await installed('three', '3'));
    expect(existsSync(path.join(tmp, 'cache', keys[0]!))).toBe(true);
    expect(existsSync(path.join(tmp, 'cache', keys[1]!))).toBe(false);
    expect(existsSync(path.join(tmp, 'cache', keys[2]!))).toBe(true);
  });
});
