import { existsSync, realpathSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PullwrightError } from '@pullwright/core';
import { CgroupScope } from './cgroup-scope.ts';
import type { CommandResult, CommandRunner, CommandSpec } from './command-runner.ts';
import { ProcessRunner } from './process-runner.ts';
import { DEFAULT_RESOURCE_LIMITS, prlimitArgs, type ResourceLimits } from './resource-limits.ts';
import { safeEnv } from './safe-env.ts';

/** HOME inside the sandbox: on the private /tmp tmpfs, empty at every start. */
export const SANDBOX_HOME = '/tmp/home';

/**
 * Hidden by default behind an empty tmpfs. The root is mounted read-only, not invisible:
 * without this a repo's test could read the worker's ~/.npmrc, ~/.ssh or a GitHub App key
 * file and print it into output the model sees. /run holds sockets (docker.sock, dbus) that
 * a read-only mount does not stop anyone from connecting to.
 */
export const DEFAULT_HIDDEN_PATHS: readonly string[] = [os.homedir(), '/root', '/home', '/run'];

/** Never hidden, even if listed: the sandbox could not run a shell without them. */
const SYSTEM_DIRS = new Set(['/', '/usr', '/bin', '/sbin', '/lib', '/lib64', '/etc', '/proc', '/dev', '/tmp']);

export interface BubblewrapRunnerOptions {
  /** Path of the bwrap binary. Default `bwrap` from PATH. */
  bwrap?: string;
  /** Default {@link DEFAULT_RESOURCE_LIMITS}. */
  limits?: Partial<ResourceLimits>;
  /**
   * Directories and files replaced by an empty tmpfs (or /dev/null) inside the sandbox: the
   * worker's data and workspace directories, key files. Default {@link DEFAULT_HIDDEN_PATHS};
   * paths given here are added to those.
   */
  hide?: readonly string[];
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
 * Runs repo commands under bubblewrap: the host's root read-only, the worktree read-write
 * with its `.git` read-only, private /tmp and HOME, no network, own pid/ipc/uts namespaces,
 * an allowlisted environment, rlimits on every process and a per-command cgroup for the
 * whole tree when the host allows one. Killing bwrap on timeout ends the pid namespace, so
 * nothing the command started survives it.
 */
export class BubblewrapRunner extends ProcessRunner implements CommandRunner {
  override readonly name: string = 'bubblewrap';
  readonly limits: ResourceLimits;
  readonly #bwrap: string;
  readonly #hidden: string[];

  constructor(options: BubblewrapRunnerOptions = {}) {
    super();
    this.#bwrap = options.bwrap ?? 'bwrap';
    this.limits = { ...DEFAULT_RESOURCE_LIMITS, ...options.limits };
    const hidden = new Set<string>();
    for (const p of [...DEFAULT_HIDDEN_PATHS, ...(options.hide ?? [])]) {
      const real = realOrUndefined(p);
      if (real && !SYSTEM_DIRS.has(real)) hidden.add(real);
    }
    this.#hidden = [...hidden];
  }

  /**
   * Runs `true` in a throwaway directory with the full set of options: succeeds only when
   * this host supports everything a real run uses (user namespaces or root, mounts, limits).
   */
  async probe(): Promise<{ ok: true } | { ok: false; reason: string }> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pw-bwrap-probe-'));
    try {
      const result = await this.run({ command: 'true', cwd: dir, timeoutMs: 10_000 });
      if (result.exitCode === 0) return { ok: true };
      return { ok: false, reason: result.output.trim().slice(0, 500) || `exit ${result.exitCode}` };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  override async run(spec: CommandSpec): Promise<CommandResult> {
    const args = this.bwrapArgs(spec);
    const env = safeEnv(SANDBOX_HOME, spec.env);
    const limited: [string, string[]] = ['prlimit', [...prlimitArgs(this.limits), this.#bwrap, ...args]];
    const cgroup = await CgroupScope.create(this.limits);
    try {
      const [file, argv] = cgroup ? cgroup.wrap(...limited) : limited;
      // bwrap itself gets only the allowlisted environment too: the sandbox's pid 1 is a fork
      // of bwrap, and its /proc/1/environ is readable from inside.
      return await this.spawnAndCollect(file, argv, spec, env);
    } finally {
      await cgroup?.destroy();
    }
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
      // Binding /tmp or a home directory read-write would undo the isolation around it.
      throw new PullwrightError(
        'validation_failed',
        'sandbox root must be a worktree, not a system or hidden directory',
        {
          root,
        },
      );
    }
    const args = ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--unshare-uts'];
    args.push('--unshare-cgroup-try', '--cap-drop', 'ALL');
    if (!spec.network) args.push('--unshare-net');
    args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
    // Mount order matters: later mounts cover earlier ones, so a worktree or a tool under a
    // hidden directory is mounted back on top of the empty tmpfs below.
    for (const hidden of this.#hidden) {
      args.push(...(isDirectory(hidden) ? ['--tmpfs', hidden] : ['--ro-bind', '/dev/null', hidden]));
    }
    for (const needed of this.#toolPaths(spec.network === true)) {
      if (this.#hidden.some((h) => isInside(needed, h))) args.push('--ro-bind', needed, needed);
    }
    args.push('--dir', SANDBOX_HOME, '--bind', root, root);
    const git = path.join(root, '.git');
    // A linked worktree's `.git` is a file naming the gitdir outside the tree, which is
    // already read-only; either way nothing inside may plant a hook or rewrite config.
    if (existsSync(git)) args.push('--ro-bind', git, git);
    args.push('--clearenv');
    for (const [key, value] of Object.entries(safeEnv(SANDBOX_HOME, spec.env))) args.push('--setenv', key, value);
    args.push('--chdir', cwd, '--', '/bin/sh', '-c', spec.command);
    return args;
  }

  /** Paths a command needs even when they sit under a hidden directory (node under ~/.nvm). */
  #toolPaths(network: boolean): string[] {
    const paths = new Set<string>();
    for (const entry of (safeEnv(SANDBOX_HOME).PATH ?? '').split(':')) {
      const real = entry && realOrUndefined(entry);
      if (real) paths.add(real);
    }
    // The node installation prefix (bin/node plus lib/node_modules/npm).
    paths.add(path.dirname(path.dirname(realpathSync(process.execPath))));
    const resolv = network ? realOrUndefined('/etc/resolv.conf') : undefined;
    if (resolv) paths.add(resolv);
    return [...paths];
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
