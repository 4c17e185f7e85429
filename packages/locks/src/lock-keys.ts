import { ValidationError } from '@pullwright/core';

/** GitHub's own rule for owner and repository names; it also keeps `{` and `}` out of hash tags. */
const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/**
 * Every key of one repository. All carry the `{owner/repo}` hash tag, so a repo's locks,
 * counter, indexes and registry share one Redis Cluster slot and one Lua script may touch
 * them all.
 */
interface LockKeys {
  /** Per-repo fencing counter, shared by file locks and the merge lock. */
  fence: string;
  /** Prefix of a file's lock key: `filePrefix + path`. */
  filePrefix: string;
  /** Prefix of an operation's owner index (set of the paths it holds): `ownerPrefix + opId`. */
  ownerPrefix: string;
  /** Set of operations that have an owner index, so the board need not SCAN. */
  owners: string;
  merge: string;
  branches: string;
  /** Pub/sub channel announcing releases, for waiters. */
  released: string;
}

export function lockKeys(prefix: string, repo: string): LockKeys {
  if (!REPO.test(repo)) {
    throw new ValidationError('invalid repository', [{ field: 'repo', reason: 'expected owner/name' }]);
  }
  const base = `${prefix}:{${repo}}:`;
  return {
    fence: `${base}fence`,
    filePrefix: `${base}file:`,
    ownerPrefix: `${base}op:`,
    owners: `${base}ops`,
    merge: `${base}merge`,
    branches: `${base}branches`,
    released: `${base}released`,
  };
}
