import { spawnSync } from 'node:child_process';

/**
 * `unshare` options that give a command its own pid namespace, with the command's shell as
 * pid 1: when pid 1 exits or `unshare` is killed (--kill-child), the kernel kills every
 * process left in the namespace. A signal to a process group cannot do that: a `setsid`
 * child leaves the group, and one ignoring SIGTERM outlives a polite kill.
 * Root may create the namespace directly; anyone else needs a user namespace first
 * (--map-root-user keeps file ownership on disk as the real user).
 */
const CANDIDATES: readonly string[][] = [
  ['--pid', '--fork', '--kill-child'],
  ['--user', '--map-root-user', '--pid', '--fork', '--kill-child'],
];

type PidNamespaceSupport = { prefix: string[] } | { reason: string };

let found: PidNamespaceSupport | undefined;

export const PidNamespace = {
  /**
   * The argv prefix (`unshare …`) that runs a command in a fresh pid namespace on this host,
   * or why there is none (macOS, a container without user namespaces). Probed once.
   */
  support(): PidNamespaceSupport {
    found ??= probe();
    return found;
  },
};

function probe(): PidNamespaceSupport {
  const reasons: string[] = [];
  for (const options of CANDIDATES) {
    const result = spawnSync('unshare', [...options, 'true'], { encoding: 'utf8', timeout: 10_000 });
    if (result.status === 0) return { prefix: ['unshare', ...options] };
    reasons.push((result.error?.message ?? result.stderr.trim()) || `exit ${result.status}`);
  }
  return { reason: reasons.join('; ') };
}
