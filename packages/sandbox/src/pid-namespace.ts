import { spawnSync } from 'node:child_process';
import { PullwrightError } from '@pullwright/core';

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

let found: string[] | undefined;

export const PidNamespace = {
  /** The argv prefix (`unshare …`) that runs a command in a fresh pid namespace on this host. */
  prefix(): string[] {
    found ??= probe();
    return found;
  },
};

function probe(): string[] {
  const reasons: string[] = [];
  for (const options of CANDIDATES) {
    const result = spawnSync('unshare', [...options, 'true'], { encoding: 'utf8', timeout: 10_000 });
    if (result.status === 0) return ['unshare', ...options];
    reasons.push((result.error?.message ?? result.stderr.trim()) || `exit ${result.status}`);
  }
  throw new PullwrightError(
    'config_invalid',
    `repository commands cannot be contained: no pid namespace (${reasons.join('; ')}). Fix: install util-linux's unshare and allow user namespaces (sysctl kernel.unprivileged_userns_clone=1), or run the worker as root`,
    { reasons },
  );
}
