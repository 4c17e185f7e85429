import type { FileHolder } from './file-locks.ts';
import type { LeaseKeeper } from './lease-keeper.ts';
import { type KeepOptions, LeasedLocks, type LockOptions, type LockOwner } from './leased-locks.ts';
import { assertLease, assertOpId } from './lock-arguments.ts';
import { lockKeys } from './lock-keys.ts';
import type { RedisClient } from './lock-scripts.ts';
import { parseLockValue } from './lock-value.ts';
import type { WaitOptions } from './lock-waiter.ts';

/**
 * 5 minutes: the merge job holds the lock from the mergeability check to the merge, a few
 * forge calls; a keeper renews it if the forge is slow, and a dead merger blocks the repo's
 * merge queue for at most this long.
 */
export const DEFAULT_MERGE_LEASE_MS = 5 * 60_000;

/** The name the merge lock goes by in LockHolder, LockWaitError and LeaseKeeper reports. */
const MERGE_LOCK_PATH = 'merge';

type MergeAcquireResult = { ok: true; token: number } | { ok: false; heldBy: { opId: string; since: number } };

type MergeHolder = Omit<FileHolder, 'path'>;

/** `defaultLeaseMs` defaults to DEFAULT_MERGE_LEASE_MS (5 min). */
type MergeLockOptions = LockOptions;

/**
 * One merge at a time per repository: the same protocol as the file locks (fencing token
 * from the repo's counter, owner-only renew and release, a lease).
 */
export class MergeLock extends LeasedLocks {
  constructor(redis: RedisClient, options: MergeLockOptions) {
    super(redis, options, DEFAULT_MERGE_LEASE_MS);
  }

  async acquire(repo: string, owner: LockOwner, leaseMs: number = this.defaultLeaseMs): Promise<MergeAcquireResult> {
    const keys = lockKeys(this.options.prefix, repo);
    assertOpId(owner.opId);
    assertLease(leaseMs);
    const reply = (await this.scripts.acquireLock([keys.merge, keys.fence], [owner.opId, leaseMs])) as Array<
      string | number
    >;
    if (reply[0] === 1) return { ok: true, token: Number(reply[1]) };
    return { ok: false, heldBy: { opId: String(reply[1]), since: Number(reply[2]) } };
  }

  /** True when `opId` still held the lock and its lease now runs `leaseMs` from now. */
  async renew(repo: string, opId: string, leaseMs: number = this.defaultLeaseMs): Promise<boolean> {
    const keys = lockKeys(this.options.prefix, repo);
    assertOpId(opId);
    assertLease(leaseMs);
    return (await this.scripts.renewLock([keys.merge], [opId, leaseMs])) === 1;
  }

  /** True when `opId` held the lock and released it; another holder's lock is never touched. */
  async release(repo: string, opId: string): Promise<boolean> {
    const keys = lockKeys(this.options.prefix, repo);
    assertOpId(opId);
    this.stopKeepers(repo, opId);
    return (
      (await this.scripts.releaseLock([keys.merge], [opId, keys.released, JSON.stringify([MERGE_LOCK_PATH])])) === 1
    );
  }

  async holder(repo: string): Promise<MergeHolder | null> {
    const keys = lockKeys(this.options.prefix, repo);
    const [[errValue, value], [errTtl, ttl]] = ((await this.redis.pipeline().get(keys.merge).pttl(keys.merge).exec()) ??
      []) as Array<[Error | null, unknown]> as [[Error | null, unknown], [Error | null, unknown]];
    if (errValue) throw errValue;
    if (errTtl) throw errTtl;
    const held = parseLockValue(value as string | null);
    return held === null ? null : { ...held, expiresInMs: Number(ttl) };
  }

  /** Resolves once the merge lock of `repo` is free (not granted: acquire next). */
  async waitFor(repo: string, options: WaitOptions = {}): Promise<void> {
    const keys = lockKeys(this.options.prefix, repo);
    await this.waiter.wait(
      keys.released,
      { repo, paths: [MERGE_LOCK_PATH] },
      async () => {
        const held = await this.holder(repo);
        return held === null
          ? { heldBy: [], expiresInMs: null }
          : {
              heldBy: [{ path: MERGE_LOCK_PATH, opId: held.opId, since: held.since }],
              expiresInMs: Math.max(0, held.expiresInMs),
            };
      },
      options,
    );
  }

  /** Renews the merge lock every leaseMs / 3 until released through this instance, lost or stopped. */
  keep(repo: string, opId: string, options: KeepOptions): LeaseKeeper {
    return this.startKeeper(repo, opId, options, async (leaseMs) =>
      (await this.renew(repo, opId, leaseMs))
        ? { renewed: [MERGE_LOCK_PATH], lost: [] }
        : { renewed: [], lost: [MERGE_LOCK_PATH] },
    );
  }
}
