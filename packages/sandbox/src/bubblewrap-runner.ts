import { spawnSync } from 'node:child_process';
import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type DependencyLayer, PullwrightError } from '@pullwright/core';
import { CgroupScope } from './cgroup-scope.ts';
import type { CommandResult, CommandRunner, CommandSpec, RunningCommand } from './command-runner.ts';
import { egressBridge } from './egress-bridge-command.ts';
import { findExecutable } from './find-executable.ts';
import { gitReadOnlyPaths } from './git-read-only-paths.ts';
import { spawnLongRunning } from './long-running-command.ts';
import { ProcessRunner } from './process-runner.ts';
import { DEFAULT_RESOURCE_LIMITS, prlimitArgs, type ResourceLimits } from './resource-limits.ts';
import { safeEnv } from './safe-env.ts';
import { SANDBOX_GID, SANDBOX_UID, sandboxEtcArgs } from './sandbox-etc.ts';
import { shellArgv } from './shell-argv.ts';
import { treeDiskWrites } from './tree-disk-writes.ts';

/** HOME inside the sandbox: on the private /tmp tmpfs, empty at every start. */
const SANDBOX_HOME = '/tmp/home';

/**
 * Size of the private /tmp (HOME included). Default 512 MiB: npm's cache for a mid-size
 * lockfile is ~200 MB; the tmpfs is memory the host gives up, so it is bounded like the rest.
 */
const TMP_BYTES = 512 * 1024 ** 2;

/**
 * The sandbox's oom_score_adj: the highest, so when memory runs out in the worker's cgroup (a
 * container's limit, which bounds a check's whole tree where bwrap gets no cgroup of its own)
 * the kernel kills the check's processes before the worker. Raising it needs no privilege.
 */
const SANDBOX_OOM_SCORE_ADJ = 1000;

/** Top-level toolchain directories shown read-only (or re-created as the symlinks they are on merged-/usr hosts). */
const TOOLCHAIN_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** Never a worktree root: binding one read-write would undo the isolation around it. */
const SYSTEM_DIRS = new Set([
  '/',
  ...TOOLCHAIN_DIRS,
  '/etc',
  '/proc',
  '/dev',
  '/tmp',
  '/var',
  '/opt',
  '/root',
  '/home',
]);

/**
 * Mounts a command's dependency layer before bwrap starts. The bubblewrap Debian 12 ships
 * (0.8) has no overlay options, so `unshare` gives the command a user and mount namespace of
 * its own, where the kernel allows an unprivileged overlay (Linux >= 5.11); bwrap's recursive
 * bind of the worktree carries the mount in, and the namespace (with the mount) ends with the
 * command. `$1`: the overlay's options; `$2`: where; the rest: the bwrap command line.
 */
const MOUNT_LAYER = 'mount -t overlay overlay -o "$1" "$2" && shift 2 && exec "$@"';

export interface BubblewrapRunnerOptions {
  /** Path of the bwrap binary. Default `bwrap` from PATH. */
  bwrap?: string;
  /** Default {@link DEFAULT_RESOURCE_LIMITS}. */
  limits?: Partial<ResourceLimits>;
  /**
   * Directories and files that must stay invisible even when they sit inside something the
   * sandbox shows (a key file under /usr/local, the data directory holding the worktrees):
   * replaced by an empty tmpfs or /dev/null. The worktree being run is mounted back on top.
   */
  hide?: readonly string[];
  /**
   * Default true: mount cached dependency trees as an overlay when the host allows it (see
   * `layersDependencies`). False: never (a restore copies the tree; tests of that fallback).
   */
  dependencyLayers?: boolean;
}

function realOrUndefined(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Runs repo commands under bubblewrap with nothing of the host but what a check needs: an
 * unprivileged uid in a user namespace, the toolchain directories (`/usr`, `/lib*`, `/bin`)
 * and an allowlisted `/etc` read-only, the worktree read-write with its `.git` (and the mirror
 * a linked worktree shares objects with) read-only, a private `/tmp` and HOME, a network
 * namespace with nothing but its own loopback (the install step's one way out is the egress
 * proxy), own pid/ipc/uts namespaces, an allowlisted environment, rlimits on every process and a per-command cgroup for the whole tree when the host allows one. Killing bwrap
 * on timeout ends the pid namespace, so nothing the command started survives it.
 */
export class BubblewrapRunner extends ProcessRunner implements CommandRunner {
  override readonly name: string = 'bubblewrap';
  override readonly sandboxed: boolean = true;
  readonly limits: ResourceLimits;
  readonly #bwrap: string;
  readonly #hidden: string[];
  #supported: Set<string> | undefined;
  #layers: Promise<boolean> | undefined;

  constructor(options: BubblewrapRunnerOptions = {}) {
    super();
    this.#bwrap = options.bwrap ?? 'bwrap';
    this.limits = { ...DEFAULT_RESOURCE_LIMITS, ...options.limits };
    const hidden = new Set<string>();
    for (const p of options.hide ?? []) {
      const real = realOrUndefined(p);
      if (real && !SYSTEM_DIRS.has(real)) hidden.add(real);
    }
    this.#hidden = [...hidden];
    if (options.dependencyLayers === false) this.#layers = Promise.resolve(false);
  }

  /**
   * Whether this host can mount a dependency layer: tried once, in a throwaway directory, with
   * the whole command line a check gets — a write through the layer must reach its upper
   * directory and leave the lower one as it was.
   */
  layersDependencies(): Promise<boolean> {
    this.#layers ??= this.#tryLayer().catch(() => false);
    return this.#layers;
  }

  async #tryLayer(): Promise<boolean> {
    if (!findExecutable('unshare') || !findExecutable('mount')) return false;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pw-bwrap-layer-'));
    try {
      const [root, lower, upper, work] = ['root', 'lower', 'upper', 'work'].map((d) => path.join(dir, d)) as [
        string,
        string,
        string,
        string,
      ];
      const at = path.join(root, 'node_modules');
      for (const d of [at, lower, upper, work]) await mkdir(d, { recursive: true });
      const r = await this.run({
        command: 'echo ok > node_modules/written',
        cwd: root,
        timeoutMs: 10_000,
        dependencies: { at, lower, upper, work },
      });
      return r.exitCode === 0 && (await readdir(upper)).includes('written') && (await readdir(lower)).length === 0;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * Runs `true` in a throwaway directory with the full set of options: resolves only when this
   * host supports everything a real run uses (the binaries, user namespaces, mounts, limits);
   * otherwise throws the reason and the fix.
   */
  async probe(): Promise<void> {
    const missing = [this.#bwrap, 'prlimit', 'choom', 'bash'].filter((name) => !findExecutable(name));
    if (missing.length > 0) throw unavailable(`${missing.join(' and ')} not found on PATH`);
    // The disk limit reads what each process wrote; without that a check could fill the disk.
    if ((await treeDiskWrites(process.pid)) === undefined)
      throw unavailable(
        'the kernel does not report per-process disk writes (/proc/<pid>/io), which the disk limit reads',
      );
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pw-bwrap-probe-'));
    try {
      const result = await this.run({ command: 'true', cwd: dir, timeoutMs: 10_000 });
      if (result.exitCode !== 0) throw unavailable(result.output.trim().slice(0, 500) || `exit ${result.exitCode}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  override async run(spec: CommandSpec): Promise<CommandResult> {
    const args = this.bwrapArgs(spec);
    const env = safeEnv(SANDBOX_HOME, spec.env);
    const limited = this.#limited(args, spec);
    const cgroup = await CgroupScope.create(this.limits);
    try {
      const [file, argv] = cgroup ? cgroup.wrap(...limited) : limited;
      // bwrap itself gets only the allowlisted environment too: the sandbox's pid 1 is a fork
      // of bwrap, and its /proc/1/environ is readable from inside.
      return await this.spawnAndCollect(file, argv, spec, env, this.limits.diskBytes);
    } finally {
      await cgroup?.destroy();
    }
  }

  /**
   * A long-running command in the same sandbox as `run` (an MCP server over stdio): its
   * stdin and stdout piped to the caller, the rlimits and a cgroup on its tree, its life
   * bounded by `spec.timeoutMs`; the cgroup is destroyed once it is gone.
   */
  async start(spec: CommandSpec): Promise<RunningCommand> {
    const args = this.bwrapArgs(spec);
    const env = safeEnv(SANDBOX_HOME, spec.env);
    const limited = this.#limited(args, spec);
    const cgroup = await CgroupScope.create(this.limits);
    const [file, argv] = cgroup ? cgroup.wrap(...limited) : limited;
    return spawnLongRunning(file, argv, spec, env, async () => {
      await cgroup?.destroy();
    });
  }

  /**
   * bwrap under the rlimits, first in line for the OOM killer (a check dies before the worker
   * does), behind the mount of the spec's dependency layer when it has one.
   */
  #limited(bwrapArgs: string[], spec: CommandSpec): [string, string[]] {
    const layer = spec.dependencies ? layerArgv(spec.dependencies, spec.root ?? spec.cwd) : [];
    return [
      'choom',
      [
        '-n',
        String(SANDBOX_OOM_SCORE_ADJ),
        '--',
        'prlimit',
        ...prlimitArgs(this.limits),
        ...layer,
        this.#bwrap,
        ...bwrapArgs,
      ],
    ];
  }

  /** The options this bwrap knows (from its --help), read once: hardening added in later versions is used when present. */
  #options(): Set<string> {
    this.#supported ??= optionsOf(this.#bwrap);
    return this.#supported;
  }

  /** The bwrap command line for one spec (exposed for tests and for the README's table). */
  bwrapArgs(spec: CommandSpec): string[] {
    const root = realOrUndefined(spec.root ?? spec.cwd);
    const cwd = realOrUndefined(spec.cwd);
    if (!root || !cwd || !isInside(cwd, root)) {
      throw new PullwrightError('validation_failed', 'sandbox cwd must be an existing directory inside its root', {
        cwd: spec.cwd,
        root: spec.root ?? spec.cwd,
      });
    }
    if (SYSTEM_DIRS.has(root) || this.#hidden.some((hidden) => isInside(hidden, root))) {
      throw new PullwrightError(
        'validation_failed',
        'sandbox root must be a worktree, not a system or hidden directory',
        {
          root,
        },
      );
    }
    // Host root (the usual worker) maps to the sandbox uid: without the user namespace the
    // check would be uid 0, and root-owned 0600 files would be readable wherever they show.
    const options = this.#options();
    const args = ['--unshare-user', '--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_GID)];
    // No user namespaces inside (bwrap >= 0.8): they are kernel attack surface a check never needs.
    if (options.has('--disable-userns')) args.push('--disable-userns');
    args.push('--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--unshare-uts');
    args.push('--unshare-cgroup-try', '--cap-drop', 'ALL');
    // Always a network namespace of its own: the install step's one way out is the egress
    // proxy's socket mounted below, never the host's interfaces (loopback included).
    args.push('--unshare-net');
    const visible: string[] = [];
    for (const dir of TOOLCHAIN_DIRS) {
      const link = readLinkOrUndefined(dir);
      if (link !== undefined) args.push('--symlink', link, dir);
      else if (isDirectory(dir)) {
        args.push('--ro-bind', dir, dir);
        visible.push(dir);
      }
    }
    // node installed outside /usr (~/.nvm, /opt/node): its prefix holds bin/node and npm.
    const nodePrefix = path.dirname(path.dirname(realpathSync(process.execPath)));
    if (!visible.some((dir) => isInside(nodePrefix, dir))) {
      args.push('--ro-bind', nodePrefix, nodePrefix);
      visible.push(nodePrefix);
    }
    args.push(...sandboxEtcArgs());
    visible.push('/etc');
    args.push('--dev', '/dev', '--proc', '/proc');
    // A bounded /tmp (bwrap >= 0.7); older ones get the kernel's default, half the RAM.
    if (options.has('--size')) args.push('--size', String(TMP_BYTES));
    args.push('--tmpfs', '/tmp');
    // Mount order matters: later mounts cover earlier ones, so the worktree (inside the hidden
    // workspace directory) is mounted back on top of an empty tmpfs here.
    for (const hidden of this.#hidden) {
      if (!visible.some((dir) => isInside(hidden, dir))) continue;
      args.push(...(isDirectory(hidden) ? ['--tmpfs', hidden] : ['--ro-bind', '/dev/null', hidden]));
    }
    args.push('--perms', '0700', '--dir', SANDBOX_HOME, spec.readOnlyRoot ? '--ro-bind' : '--bind', root, root);
    for (const readOnly of gitReadOnlyPaths(root)) args.push('--ro-bind', readOnly, readOnly);
    const bridge = spec.egress ? egressBridge(spec.egress.socketDir, realpathSync(process.execPath)) : undefined;
    for (const [host, inside] of bridge?.mounts ?? []) args.push('--ro-bind', host, inside);
    args.push('--clearenv');
    for (const [key, value] of Object.entries(safeEnv(SANDBOX_HOME, spec.env))) args.push('--setenv', key, value);
    args.push('--chdir', cwd, '--', ...(bridge?.argv ?? []), ...shellArgv(spec.command));
    return args;
  }
}

/** The `unshare` + `mount` prefix for a layer; its directories are ours (the cache's), never the repository's. */
function layerArgv(layer: DependencyLayer, rootDir: string): string[] {
  const root = realOrUndefined(rootDir);
  const at = realOrUndefined(layer.at);
  // The overlay's option string separates with `,` and `:`: a path holding one would change what is mounted.
  const unsafe = [layer.lower, layer.upper, layer.work].some((dir) => /[,:\\]/.test(dir));
  if (!root || !at || at === root || !isInside(at, root) || unsafe)
    throw new PullwrightError('validation_failed', 'a dependency layer must be a directory inside the sandbox root', {
      field: 'dependencies.at',
    });
  const options = `lowerdir=${layer.lower},upperdir=${layer.upper},workdir=${layer.work}`;
  return ['unshare', '--user', '--map-root-user', '--mount', 'sh', '-c', MOUNT_LAYER, 'sh', options, at];
}

function optionsOf(bwrap: string): Set<string> {
  const help = spawnSync(bwrap, ['--help'], { encoding: 'utf8', timeout: 10_000 });
  return new Set(`${help.stdout ?? ''}`.match(/--[a-z][a-z-]*/g) ?? []);
}

function unavailable(reason: string): PullwrightError {
  return new PullwrightError(
    'config_invalid',
    `SANDBOX=bubblewrap cannot start: ${reason}. Fix: install bubblewrap and util-linux (apt-get install bubblewrap util-linux) and allow user namespaces, or set SANDBOX=docker, or SANDBOX=none to run repository code without a sandbox`,
    { reason },
  );
}

function readLinkOrUndefined(p: string): string | undefined {
  try {
    return lstatSync(p).isSymbolicLink() ? readlinkSync(p) : undefined;
  } catch {
    return undefined;
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
