/** Ceilings for one repo command and everything it starts. */
export interface ResourceLimits {
  /**
   * Bytes of memory. Default 2 GiB: a TypeScript test suite under vitest or jest peaks near
   * 1 GiB per worker; twice that still stops a runaway allocation long before the host swaps.
   */
  memoryBytes: number;
  /**
   * Processes and threads. Default 256: `npm test` with a worker pool on a few cores uses
   * well under 100 (node alone has ~11 threads); a fork bomb hits the ceiling in milliseconds.
   */
  pids: number;
  /** CPU cores (fractional allowed). Default 1. Enforced by the Docker runner only. */
  cpus: number;
  /**
   * Bytes the command's processes may put on disk (the worktree is the only disk a sandboxed
   * command can write; its /tmp is a bounded tmpfs). Default 2 GiB: a large `npm ci` writes
   * about 1 GiB; a check wrote 1.5 GiB in 6.8 s before there was a limit. Measured while the
   * command runs (see treeDiskWrites) and also the largest file any process may write
   * (RLIMIT_FSIZE). Past it the command is killed and its output names the limit.
   */
  diskBytes: number;
}

export const DEFAULT_RESOURCE_LIMITS: Readonly<ResourceLimits> = Object.freeze({
  memoryBytes: 2 * 1024 ** 3,
  pids: 256,
  cpus: 1,
  diskBytes: 2 * 1024 ** 3,
});

/** "2 GiB", "64 MiB": how a limit is named in a command's output. */
export function formatLimit(bytes: number): string {
  return bytes >= 1024 ** 3 && bytes % 1024 ** 3 === 0
    ? `${bytes / 1024 ** 3} GiB`
    : `${Math.round(bytes / 1024 ** 2)} MiB`;
}

/**
 * `prlimit` arguments applied to the sandbox's first process and inherited by every
 * descendant. RLIMIT_DATA rather than RLIMIT_AS: V8 reserves far more address space than it
 * uses, so node does not even start under a 256 MB address-space limit, while RLIMIT_DATA
 * (private writable mappings, i.e. heap) lets it start and stops the allocation that runs away.
 * Both are per process; the cgroup (when the host lets us create one) bounds the whole tree.
 * RLIMIT_NPROC counts the user's processes host-wide and is ignored for root, hence the cgroup.
 */
export function prlimitArgs(limits: ResourceLimits): string[] {
  return [`--nproc=${limits.pids}`, `--data=${limits.memoryBytes}`, `--fsize=${limits.diskBytes}`, '--core=0', '--'];
}
