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
   * Network access. Default false: only the dependency-install step, which runs before the
   * agent loop, asks for it (package registries); checks the model can steer never get it.
   */
  network?: boolean;
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

export interface CommandRunner {
  /** `bubblewrap`, `docker` or `process` (SANDBOX=none). */
  readonly name: string;
  /**
   * False only for the plain process runner (SANDBOX=none): the repository's code then sees
   * the worker's files and network. Shown on every operation run through it.
   */
  readonly sandboxed: boolean;
  run(spec: CommandSpec): Promise<CommandResult>;
}
