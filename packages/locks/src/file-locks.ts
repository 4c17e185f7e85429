import { ValidationError } from '@pullwright/core';
import type { LeaseKeeper, RenewResult } from './lease-keeper.ts';
import { type KeepOptions, LeasedLocks, type LockOptions, type LockOwner } from './leased-locks.ts';
import { assertLease, assertOpId } from './lock-arguments.ts';
import { lockKeys } from './lock-keys.ts';
import type { RedisClient } from './lock-scripts.ts';
import { parseLockValue } from './lock-value.ts';
import type { LockHolder, LockProbe, WaitOptions } from './lock-waiter.ts';

/**
 * 30 minutes: an agent loop edits a file over many model turns, and a worker that dies
 * frees its files within this bound. Live jobs renew every 10 minutes (LeaseKeeper).
 */
export const DEFAULT_FILE_LEASE_MS = 30 * 60_000;

/** One grant is one script call; keeps KEYS and the reply far below Lua's stack limits. */
const MAX_PATHS_PER_GRANT = 1000;

type AcquireResult = { ok: true; token: number; paths: string[] } | { ok: false; heldBy: LockHolder[] };

export interface FileHolder extends LockHolder {
  token: number;
  /** Lease left at the time of the call. */
  expiresInMs: number;
}

/** `defaultLeaseMs` defaults to DEFAULT_FILE_LEASE_MS (30 min). */
type FileLocksOptions = LockOptions;

/**
 * Per-file locks for operations on a repository. A grant locks all its paths or none in
 * one Lua script and carries a fencing token from a per-repo counter; renew and release
 * act only on locks whose stored owner is the caller, so a worker whose lease ran out can
 * never free a lock someone else has taken since.
 */
export class FileLocks extends LeasedLocks {
  constructor(redis: RedisClient, options: FileLocksOptions) {
    super(redis, options, DEFAULT_FILE_LEASE_MS);
  }

  /**
   * Locks `paths` of `repo` for `owner`, all or nothing. Paths are de-duplicated and sorted.
   * Paths the owner already holds are granted again with the new token and a fresh lease.
   * Refusal lists every path held by another operation.
   */
  async acquire(
    repo: string,
    paths: string[],
    owner: LockOwner,
    leaseMs: number = this.defaultLeaseMs,
  ): Promise<AcquireResult> {
    const keys = lockKeys(this.options.prefix, repo);
    const sorted = normalizePaths(paths);
    assertOpId(owner.opId);
    assertLease(leaseMs);
    const reply = (await this.scripts.acquireFiles(
      [keys.fence, keys.ownerPrefix + owner.opId, keys.owners, ...sorted.map((p) => keys.filePrefix + p)],
      [owner.opId, leaseMs, ...sorted],
    )) as Array<string | number>;
    if (reply[0] === 1) return { ok: true, token: Number(reply[1]), paths: sorted };
    const heldBy: LockHolder[] = [];
    for (let i = 1; i + 2 < reply.length; i += 3) {
      heldBy.push({ path: String(reply[i]), opId: String(reply[i + 1]), since: Number(reply[i + 2]) });
    }
    return { ok: false, heldBy };
  }

  /** Extends every lock `opId` still holds in `repo` to `leaseMs` from now; reports the lost ones. */
  async renew(repo: string, opId: string, leaseMs: number = this.defaultLeaseMs): Promise<RenewResult> {
    const keys = lockKeys(this.options.prefix, repo);
    assertOpId(opId);
    assertLease(leaseMs);
    const [renewed, lost] = (await this.scripts.renewFiles(
      [keys.ownerPrefix + opId, keys.owners],
      [keys.filePrefix, opId, leaseMs],
    )) as [string[], string[]];
    return { renewed: renewed.sort(), lost: lost.sort() };
  }

  /** Releases every lock `opId` holds in `repo` and wakes waiters; returns the paths released. */
  async release(repo: string, opId: string): Promise<string[]> {
    const keys = lockKeys(this.options.prefix, repo);
    assertOpId(opId);
    this.stopKeepers(repo, opId);
    const released = (await this.scripts.releaseFiles(
      [keys.ownerPrefix + opId, keys.owners],
      [keys.filePrefix, opId, keys.released],
    )) as string[];
    return released.sort();
  }

  /** Who holds each of `paths` now, with the fencing token of their grant; free paths are absent. */
  async current(repo: string, paths: string[]): Promise<Map<string, { opId: string; token: number }>> {
    const keys = lockKeys(this.options.prefix, repo);
    const sorted = normalizePaths(paths);
    const values = await this.redis.mget(...sorted.map((p) => keys.filePrefix + p));
    const out = new Map<string, { opId: string; token: number }>();
    sorted.forEach((p, i) => {
      const held = parseLockValue(values[i] ?? null);
      if (held) out.set(p, { opId: held.opId, token: held.token });
    });
    return out;
  }

  /** Every live file lock of `repo`, sorted by path. */
  async holders(repo: string): Promise<FileHolder[]> {
    const keys = lockKeys(this.options.prefix, repo);
    const reply = (await this.scripts.fileHolders([keys.owners], [keys.ownerPrefix, keys.filePrefix])) as Array<
      string | number
    >;
    const holders: FileHolder[] = [];
    for (let i = 0; i + 4 < reply.length; i += 5) {
      holders.push({
        path: String(reply[i]),
        opId: String(reply[i + 1]),
        token: Number(reply[i + 2]),
        since: Number(reply[i + 3]),
        expiresInMs: Number(reply[i + 4]),
      });
    }
    return holders.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * Resolves once none of `paths` is locked (by anyone). Free is not granted: the caller
   * acquires next and, if another waiter won the race, waits again.
   */
  async waitFor(repo: string, paths: string[], options: WaitOptions = {}): Promise<void> {
    const keys = lockKeys(this.options.prefix, repo);
    const sorted = normalizePaths(paths);
    const probe = async (): Promise<LockProbe> => {
      const pipeline = this.redis.pipeline();
      for (const path of sorted) pipeline.get(keys.filePrefix + path).pttl(keys.filePrefix + path);
      const results = (await pipeline.exec()) ?? [];
      const heldBy: LockHolder[] = [];
      let expiresInMs: number | null = null;
      sorted.forEach((path, i) => {
        const [errValue, value] = results[2 * i] ?? [];
        const [errTtl, ttl] = results[2 * i + 1] ?? [];
        if (errValue) throw errValue;
        if (errTtl) throw errTtl;
        const held = parseLockValue(value as string | null);
        if (!held) return;
        heldBy.push({ path, opId: held.opId, since: held.since });
        const left = Number(ttl);
        if (left >= 0) expiresInMs = expiresInMs === null ? left : Math.min(expiresInMs, left);
      });
      return { heldBy, expiresInMs };
    };
    await this.waiter.wait(keys.released, { repo, paths: sorted }, probe, options);
  }

  /**
   * Renews `opId`'s locks every leaseMs / 3 until they are released through this instance,
   * all lost, or the keeper is stopped; `onLost` hears of every lock that stopped being ours.
   */
  keep(repo: string, opId: string, options: KeepOptions): LeaseKeeper {
    return this.startKeeper(repo, opId, options, (leaseMs) => this.renew(repo, opId, leaseMs));
  }
}

function normalizePaths(paths: string[]): string[] {
  const sorted = [...new Set(paths)].sort();
  const issues = [];
  if (sorted.length === 0) issues.push({ field: 'paths', reason: 'at least one path is required' });
  if (sorted.length > MAX_PATHS_PER_GRANT) {
    issues.push({ field: 'paths', reason: `at most ${MAX_PATHS_PER_GRANT} paths per grant` });
  }
  if (sorted.some((p) => p.length === 0)) issues.push({ field: 'paths', reason: 'empty path' });
  if (issues.length > 0) throw new ValidationError('invalid lock paths', issues);
  return sorted;
}
