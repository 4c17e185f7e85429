/**
 * A cached dependency tree (`node_modules`) shown in a worktree without copying it (issue 29):
 * an overlay mounted over `at` for each sandboxed command, with `lower` (the host's shared
 * cache, never written) below and `upper` (this worktree's own, kept between its commands)
 * above. A command's writes land in `upper` only: never in the cache, never in another
 * worktree. The dependency cache makes it; the sandbox mounts it.
 */
export interface DependencyLayer {
  /** The worktree's `node_modules`: an empty mount point on the host. */
  at: string;
  lower: string;
  upper: string;
  /** The overlay's scratch directory, on the same filesystem as `upper`. */
  work: string;
}
