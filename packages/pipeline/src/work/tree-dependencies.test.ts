import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BubblewrapRunner } from '@pullwright/sandbox';
import { DependencyCache } from '@pullwright/workspace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installDependencies } from './install-dependencies.ts';
import { TreeDependencies } from './tree-dependencies.ts';

/**
 * Dependencies without copying (issue 29): two trees take the same cached `node_modules`, one
 * of them has a check write into it. Through the overlay (bubblewrap here can mount one) and
 * through the copy it falls back to, the writes stay in that tree: the cache and the other
 * tree keep the installed files.
 */
describe.each([
  { how: 'layered', runner: new BubblewrapRunner() },
  { how: 'restored', runner: new BubblewrapRunner({ dependencyLayers: false }) },
] as const)('a cached tree used by two worktrees ($how)', ({ how, runner }) => {
  const spec = { repo: 'acme/app', lockfile: '{"lockfileVersion":3}', manifest: '{"name":"app"}' };
  const install = { command: 'npm ci', timeoutMs: 30_000, allow: [] };
  // The cached tree answers, so no proxy starts; a refusal here would be a bug.
  const noEgress = {
    trusted: [],
    servicePorts: [],
    onRefused: async () => {
      throw new Error('no connection expected');
    },
  };
  const redactor = { redact: (t: string) => t };
  let tmp: string;
  let cache: DependencyCache;
  let entry: string;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'pw-tree-deps-'));
    cache = new DependencyCache(path.join(tmp, 'cache'));
    // An earlier operation's install: one package, stored as the cache keeps it.
    const first = path.join(tmp, 'first');
    await mkdir(path.join(first, 'node_modules', 'left-pad'), { recursive: true });
    await writeFile(path.join(first, 'node_modules', 'left-pad', 'index.js'), 'installed\n');
    const key = cache.keyOf({ ...spec, command: install.command })!;
    await cache.store(key, first);
    entry = path.join(cache.root, key, 'node_modules');
  });
  afterAll(() => rm(tmp, { recursive: true, force: true }));

  async function tree(name: string): Promise<{ dir: string; deps: TreeDependencies }> {
    const dir = path.join(tmp, name);
    await mkdir(dir);
    const deps = new TreeDependencies(cache);
    // `npm ci` never runs (no network here): the cached tree answers both installs.
    deps.begin((signal) =>
      installDependencies(runner, install, dir, redactor, noEgress, { cache, spec, layer: true }, signal),
    );
    return { dir, deps };
  }
  const sh = (t: { dir: string; deps: TreeDependencies }, command: string) =>
    t.deps.runner(runner).run({ command, cwd: t.dir, timeoutMs: 30_000 });

  it('a check writing into node_modules changes nothing in the cache or in the other tree', async () => {
    const [a, b] = [await tree('a'), await tree('b')];
    expect((await a.deps.ready()).how).toBe(how);
    expect((await b.deps.ready()).how).toBe(how);
    const wrote = await sh(a, 'echo changed > node_modules/left-pad/index.js && echo new > node_modules/added.js');
    expect(wrote.exitCode).toBe(0);

    expect((await sh(a, 'cat node_modules/left-pad/index.js node_modules/added.js')).output).toBe('changed\nnew\n');
    // The writing tree keeps its writes from one command to the next; the other sees the install.
    expect((await sh(b, 'cat node_modules/left-pad/index.js; ls node_modules')).output).toBe('installed\nleft-pad\n');
    expect(await readFile(path.join(entry, 'left-pad', 'index.js'), 'utf8')).toBe('installed\n');
    expect(await readdir(entry)).toEqual(['left-pad']);

    await Promise.all([a.deps.release(), b.deps.release()]);
    // A layer's own writes go with its tree; a copy is the tree's own files.
    expect(existsSync(path.join(cache.root, '.layers')) ? await readdir(path.join(cache.root, '.layers')) : []).toEqual(
      [],
    );
  });
});
