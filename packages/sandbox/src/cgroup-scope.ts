import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ResourceLimits } from './resource-limits.ts';

type Controller = 'pids' | 'memory';

interface ControllerDir {
  /** The cgroup this process is in, where per-command children are created. */
  parent: string;
  version: 1 | 2;
}

/**
 * Where this process may create child cgroups for each controller, read once from
 * /proc/self/mountinfo and /proc/self/cgroup. Works with cgroup v1 (one hierarchy per
 * controller) and v2 (a delegated subtree with the controller enabled in subtree_control).
 */
function findControllerDirs(): Map<Controller, ControllerDir> {
  const found = new Map<Controller, ControllerDir>();
  let mountinfo: string;
  let membership: string;
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
    membership = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return found;
  }
  const ownPath = new Map<string, string>();
  for (const line of membership.split('\n')) {
    const [, controllers, cgPath] = line.split(':');
    if (controllers === undefined || cgPath === undefined) continue;
    for (const c of controllers === '' ? ['<v2>'] : controllers.split(',')) ownPath.set(c, cgPath);
  }
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const fields = left.split(' ');
    const [fstype, , superOptions = ''] = right.split(' ');
    const root = fields[3];
    const mountPoint = fields[4];
    if (root === undefined || mountPoint === undefined) continue;
    // The mount may expose only part of the hierarchy (containers): paths are relative to its root.
    const dirFor = (cgPath: string) => path.join(mountPoint, path.relative(root, cgPath));
    if (fstype === 'cgroup') {
      for (const c of ['pids', 'memory'] as const) {
        const cgPath = ownPath.get(c);
        if (superOptions.split(',').includes(c) && cgPath !== undefined)
          found.set(c, { parent: dirFor(cgPath), version: 1 });
      }
    } else if (fstype === 'cgroup2') {
      const cgPath = ownPath.get('<v2>');
      if (cgPath === undefined) continue;
      const dir = dirFor(cgPath);
      let enabled: string[] = [];
      try {
        enabled = readFileSync(path.join(dir, 'cgroup.subtree_control'), 'utf8').trim().split(' ');
      } catch {
        continue;
      }
      for (const c of ['pids', 'memory'] as const) {
        if (enabled.includes(c) && !found.has(c)) found.set(c, { parent: dir, version: 2 });
      }
    }
  }
  return found;
}

let controllerDirs: Map<Controller, ControllerDir> | undefined;

/**
 * A cgroup per command, so the pids and memory ceilings hold for the whole process tree,
 * whatever uid it runs as (RLIMIT_NPROC does nothing for root). The first process joins it
 * through a wrapper shell before exec'ing the sandbox, so no child escapes by forking early.
 * Exists only when the host lets this process create child cgroups; otherwise the runner
 * relies on rlimits and the timeout.
 */
export class CgroupScope {
  private constructor(
    /** The cgroup directories, one per hierarchy (v1) or a single one (v2). */
    readonly dirs: readonly string[],
    readonly controllers: readonly Controller[],
  ) {}

  /** Controllers this host lets us limit per command (empty when cgroups are not writable). */
  static availableControllers(): Controller[] {
    controllerDirs ??= findControllerDirs();
    return [...controllerDirs.keys()];
  }

  static async create(limits: ResourceLimits): Promise<CgroupScope | undefined> {
    controllerDirs ??= findControllerDirs();
    const name = `pullwright-${process.pid}-${randomBytes(4).toString('hex')}`;
    const dirs = new Map<string, ControllerDir>();
    const limitFiles: Array<[string, string]> = [];
    for (const [controller, where] of controllerDirs) {
      const dir = path.join(where.parent, name);
      dirs.set(dir, where);
      if (controller === 'pids') limitFiles.push([path.join(dir, 'pids.max'), String(limits.pids)]);
      else if (where.version === 2) {
        limitFiles.push([path.join(dir, 'memory.max'), String(limits.memoryBytes)]);
        limitFiles.push([path.join(dir, 'memory.swap.max'), '0']);
      } else {
        limitFiles.push([path.join(dir, 'memory.limit_in_bytes'), String(limits.memoryBytes)]);
        // Without this, v1 lets the tree spill into swap past the limit (when swap accounting is on).
        limitFiles.push([path.join(dir, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes)]);
      }
    }
    if (dirs.size === 0) return undefined;
    const scope = new CgroupScope([...dirs.keys()], [...controllerDirs.keys()]);
    try {
      for (const dir of dirs.keys()) await mkdir(dir);
      for (const [file, value] of limitFiles) {
        if (file.endsWith('memsw.limit_in_bytes') && !existsSync(file)) continue;
        await writeFile(file, value);
      }
      return scope;
    } catch {
      await scope.destroy();
      // Not ours to create (read-only cgroupfs, no delegation): stop trying on every command.
      controllerDirs = new Map();
      return undefined;
    }
  }

  /** Wraps a command so its first process joins this cgroup before anything else runs. */
  wrap(file: string, args: string[]): [string, string[]] {
    const join = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';
    const procs = this.dirs.map((dir) => path.join(dir, 'cgroup.procs'));
    return ['/bin/sh', ['-c', join, 'sh', ...procs, '--', file, ...args]];
  }

  /** Kills every process still in the cgroup and removes it. */
  async destroy(): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt++) {
      let remaining = 0;
      for (const dir of this.dirs) {
        if (!existsSync(dir)) continue;
        remaining += await this.#killMembers(dir);
        try {
          await rmdir(dir);
        } catch {
          remaining++;
        }
      }
      if (remaining === 0) return;
      // SIGKILLed members leave the cgroup once reaped: usually within a few milliseconds.
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async #killMembers(dir: string): Promise<number> {
    let pids: number[];
    try {
      pids = (await readFile(path.join(dir, 'cgroup.procs'), 'utf8')).split('\n').filter(Boolean).map(Number);
    } catch {
      return 0;
    }
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // exited meanwhile
      }
    }
    return pids.length;
  }
}
