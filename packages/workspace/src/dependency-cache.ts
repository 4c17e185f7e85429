import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { DependencyLayer } from '@pullwright/core';

const run = promisify(execFile);

/** What an install produces and what decides it: npm's tree, by its lock file. */
export interface DependencySpec {
  repo: string;
  /** The install command as it will run. */
  command: string;
  /** The lock file's content at the base commit (`package-lock.json`). */
  lockfile: string;
  /** `package.json` at the base commit: its install scripts run too. */
  manifest: string;
}

/** Install commands whose result is a `node_modules` tree fixed by `package-lock.json`. */
const CACHEABLE = /^npm (ci|install)\b/;
const DIR = 'node_modules';
const COMPLETE = '.pullwright-complete';

/**
 * The install step's result (`node_modules`) per (repository, lock file, install command,
 * Node version), shared by the workers of a host. A restore copies the tree into the
 * worktree (`cp --reflink=auto`: copy-on-write where the filesystem has it, else a plain
 * copy) — never hard links, which a repository's test could write through into the next
 * operation's dependencies. At most `maxEntries` trees are kept; the least recently used
 * goes first. A tree is stored only after a successful install, under a temporary name
 * renamed into place, so a half-written tree is never restored. Where the sandbox can mount
 * an overlay, `layer` shows the cached tree without copying it (issue 29): the cache read-only
 * below, a private directory of the worktree's own above.
 */
export class DependencyCache {
  constructor(
    readonly root: string,
    private readonly maxEntries = 8,
  ) {}

  /** The cache key, or undefined when the command's result is not one we know how to cache. */
  keyOf(spec: DependencySpec): string | undefined {
    if (!CACHEABLE.test(spec.command.trim())) return undefined;
    return createHash('sha256')
      .update(JSON.stringify([spec.repo, spec.command.trim(), process.version, spec.lockfile, spec.manifest]))
      .digest('hex')
      .slice(0, 32);
  }

  /** Copies the cached tree into `dir`; false on a miss (the install runs). */
  async restore(key: string, dir: string): Promise<boolean> {
    const entry = path.join(this.root, key);
    if (!existsSync(path.join(entry, COMPLETE))) return false;
    await rm(path.join(dir, DIR), { recursive: true, force: true });
    await run('cp', ['-a', '--reflink=auto', path.join(entry, DIR), path.join(dir, DIR)]);
    const now = new Date();
    await utimes(path.join(entry, COMPLETE), now, now);
    return true;
  }

  /**
   * The cached tree for `dir` as an overlay layer, undefined on a miss: `dir/node_modules`
   * becomes an empty mount point, and the layer's writable directories are new (under
   * `.layers/`, which pruning skips). `dropLayer` removes them when the tree is done.
   */
  async layer(key: string, dir: string): Promise<DependencyLayer | undefined> {
    const entry = path.join(this.root, key);
    if (!existsSync(path.join(entry, COMPLETE))) return undefined;
    const own = path.join(this.root, '.layers', randomUUID());
    const layer = {
      at: path.join(dir, DIR),
      lower: path.join(entry, DIR),
      upper: path.join(own, 'upper'),
      work: path.join(own, 'work'),
    };
    await rm(layer.at, { recursive: true, force: true });
    for (const d of [layer.at, layer.upper, layer.work]) await mkdir(d, { recursive: true });
    const now = new Date();
    await utimes(path.join(entry, COMPLETE), now, now);
    return layer;
  }

  /** Removes a layer's writable directories (its tree's writes go with them). */
  async dropLayer(layer: DependencyLayer): Promise<void> {
    await rm(path.dirname(layer.upper), { recursive: true, force: true });
  }

  /** Keeps `dir`'s tree for the next operation with the same key. */
  async store(key: string, dir: string): Promise<void> {
    const from = path.join(dir, DIR);
    const entry = path.join(this.root, key);
    if (!existsSync(from) || existsSync(path.join(entry, COMPLETE))) return;
    const staging = path.join(this.root, `.${key}.${process.pid}.${Date.now().toString(36)}`);
    await mkdir(staging, { recursive: true });
    try {
      await run('cp', ['-a', '--reflink=auto', from, path.join(staging, DIR)]);
      await writeFile(path.join(staging, COMPLETE), '');
      await rename(staging, entry).catch(() => undefined); // another worker stored it first: theirs is as good
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    await this.#prune();
  }

  async #prune(): Promise<void> {
    const entries = (await readdir(this.root).catch(() => [])).filter((e) => !e.startsWith('.'));
    if (entries.length <= this.maxEntries) return;
    const used = await Promise.all(
      entries.map(async (e) => ({
        e,
        at: (await stat(path.join(this.root, e, COMPLETE)).catch(() => undefined))?.mtimeMs ?? 0,
      })),
    );
    used.sort((a, b) => a.at - b.at);
    for (const { e } of used.slice(0, entries.length - this.maxEntries))
      await rm(path.join(this.root, e), { recursive: true, force: true });
  }
}
