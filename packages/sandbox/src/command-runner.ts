import type { Readable, Writable } from 'node:stream';
import type { DependencyLayer } from '@pullwright/core';

/** How every repo command (install, test, lint, build) is run: the seam the sandbox plugs into. */
export interface CommandSpec {
  /** Shell command line from the repo's config (`npm test`), run by `bash -eo pipefail -c` (see shellArgv). */
  command: string;
  cwd: string;
  /**
   * The directory the command may write: the worktree. Defaults to `cwd`. Sandboxing runners
   * mount it read-write (its `.git` stays read-only) and everything else read-only.
   */
  root?: string;
  timeoutMs: number;
  /** Bytes of combined output kept; the rest is dropped from the middle. */
  maxOutputBytes?: number;
  /** Extra variables on top of the allowlisted base environment. */
  env?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * Network access, through the worker's egress proxy only (see EgressProxy): the directory
   * holding its unix socket. The sandboxing runners keep the command in a network namespace
   * of its own whatever this says, mount the directory and start the bridge that points the
   * proxy variables at it. Default none: only the dependency-install step asks for it;
   * checks the model can steer never get it.
   */
  egress?: { socketDir: string };
  /**
   * Mount the root read-only as well (sandboxing runners): for processes that must never
   * change the worktree themselves, such as a repository's MCP servers — the model changes
   * files only through its file tools and the workspace gate.
   */
  readOnlyRoot?: boolean;
  /**
   * A dependency tree shown inside the root without copying it (runners whose
   * `layersDependencies` says yes), mounted for this command only.
   */
  dependencies?: DependencyLayer;
}

export interface CommandResult {
  exitCode: number | null;
  /** Set when the command was killed: its timeout, an abort, or past its disk limit. */
  killedBy?: 'timeout' | 'abort' | 'disk_limit';
  durationMs: number;
  /** stdout and stderr interleaved as they arrived, trimmed to the cap. */
  output: string;
  truncated: boolean;
}

/**
 * A command that keeps running while its caller talks to it over its standard streams (an
 * MCP server over stdio). `timeoutMs` of its spec bounds its whole life.
 */
export interface RunningCommand {
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** The last bytes it wrote on stderr (capped): why it failed, for a readable note. */
  stderr(): string;
  /** Settles once the command and everything it started are gone. */
  readonly exited: Promise<{ exitCode: number | null; killedBy?: 'timeout' | 'abort' | 'stop' }>;
  /** Ends the command and everything it started; resolves when they are gone. */
  stop(): Promise<void>;
}

export interface CommandRunner {
  /** `bubblewrap`, `docker` or `process` (SANDBOX=none). */
  readonly name: string;
  /**
   * False only for the plain process runner (SANDBOX=none): the repository's code then sees
   * the worker's files and network. Shown on every operation run through it.
   */
  readonly sandboxed: boolean;
  run(spec: CommandSpec): Promise<CommandResult>;
  /**
   * Starts a long-running command with its standard streams piped to the caller. Only
   * runners that can keep it from changing the worktree offer it (bubblewrap, with
   * `readOnlyRoot`); the others leave it out, and their callers refuse what needs it.
   */
  start?(spec: CommandSpec): Promise<RunningCommand>;
  /**
   * Whether `run` and `start` can mount a spec's `dependencies` (bubblewrap on a kernel with
   * unprivileged overlays). Runners without it leave it out: their dependencies are copied.
   */
  layersDependencies?(): Promise<boolean>;
}
