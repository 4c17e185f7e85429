import { ValidationError } from '@pullwright/core';
import { assertOpId, assertPrefix } from './lock-arguments.ts';
import { lockKeys } from './lock-keys.ts';
import type { RedisClient } from './lock-scripts.ts';

interface BranchEntry {
  branch: string;
  opId: string;
  /** Files the branch changes, sorted. */
  files: string[];
  prNumber?: number;
  /** ms since the epoch, set on every register. */
  registeredAt: number;
}

interface BranchOverlap {
  branch: string;
  opId: string;
  prNumber?: number;
  /** The asked-for files this branch also changes, sorted. */
  files: string[];
}

interface RegisterBranch {
  opId: string;
  files: string[];
  prNumber?: number;
}

interface BranchRegistryOptions {
  prefix: string;
}

/**
 * Open branches of a repository and the files each changes: one hash per repo (branch →
 * JSON), so registering is idempotent and a retried publish step cannot add a duplicate.
 * A repo has tens of open branches, so overlaps are computed client-side from one HGETALL.
 */
export class BranchRegistry {
  constructor(
    private readonly redis: RedisClient,
    private readonly options: BranchRegistryOptions,
  ) {
    assertPrefix(options.prefix);
  }

  async register(repo: string, branch: string, entry: RegisterBranch): Promise<BranchEntry> {
    const keys = lockKeys(this.options.prefix, repo);
    assertBranch(branch);
    assertOpId(entry.opId);
    const stored: BranchEntry = {
      branch,
      opId: entry.opId,
      files: [...new Set(entry.files)].sort(),
      ...(entry.prNumber === undefined ? {} : { prNumber: entry.prNumber }),
      registeredAt: Date.now(),
    };
    await this.redis.hset(keys.branches, branch, JSON.stringify(stored));
    return stored;
  }

  /** True when the branch was registered. */
  async drop(repo: string, branch: string): Promise<boolean> {
    const keys = lockKeys(this.options.prefix, repo);
    assertBranch(branch);
    return (await this.redis.hdel(keys.branches, branch)) === 1;
  }

  /** Open branches sorted by name. */
  async list(repo: string): Promise<BranchEntry[]> {
    const keys = lockKeys(this.options.prefix, repo);
    const all = await this.redis.hgetall(keys.branches);
    return Object.values(all)
      .map(parseEntry)
      .sort((a, b) => (a.branch < b.branch ? -1 : a.branch > b.branch ? 1 : 0));
  }

  /** Open branches (except `excludeBranch`) that change any of `files`, with the shared files. */
  async overlaps(repo: string, files: string[], excludeBranch?: string): Promise<BranchOverlap[]> {
    const wanted = new Set(files);
    const overlaps: BranchOverlap[] = [];
    for (const entry of await this.list(repo)) {
      if (entry.branch === excludeBranch) continue;
      const shared = entry.files.filter((f) => wanted.has(f));
      if (shared.length === 0) continue;
      overlaps.push({
        branch: entry.branch,
        opId: entry.opId,
        ...(entry.prNumber === undefined ? {} : { prNumber: entry.prNumber }),
        files: shared,
      });
    }
    return overlaps;
  }
}

function assertBranch(branch: string): void {
  if (branch.length === 0) throw new ValidationError('invalid branch', [{ field: 'branch', reason: 'empty' }]);
}

function parseEntry(json: string): BranchEntry {
  const value = JSON.parse(json) as Partial<BranchEntry>;
  if (
    typeof value.branch !== 'string' ||
    typeof value.opId !== 'string' ||
    !Array.isArray(value.files) ||
    typeof value.registeredAt !== 'number'
  ) {
    throw new ValidationError('corrupt branch registry entry', [{ field: 'branches', reason: 'unexpected shape' }]);
  }
  return value as BranchEntry;
}
