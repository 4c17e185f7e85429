import type { Logger } from '@pullwright/core';
import { LeaseKeeper, type RenewResult } from './lease-keeper.ts';
import { assertLease, assertOpId, assertPrefix } from './lock-arguments.ts';
import { lockKeys } from './lock-keys.ts';
import { type LockScripts, lockScripts, type RedisClient } from './lock-scripts.ts';
import { LockWaiter } from './lock-waiter.ts';

export interface LockOwner {
  opId: string;
}

export interface LockOptions {
  /** First segment of every key, e.g. `pw`. */
  prefix: string;
  /** Lease when a call names none; each lock kind documents its own default. */
  defaultLeaseMs?: number;
  /** Share one subscriber connection between lock kinds; default: a private one, closed by close(). */
  waiter?: LockWaiter;
  /** Poll interval of the private waiter (default 1000 ms). */
  pollMs?: number;
  logger?: Logger;
}

export interface KeepOptions {
  leaseMs?: number;
  onLost: (lost: string[]) => void;
  onError?: (err: unknown) => void;
}

/**
 * What FileLocks and MergeLock share: the scripts on one client, the waiter, the default
 * lease, and the keepers started here, which a release through this instance stops before
 * they could mistake the release for a loss.
 */
export abstract class LeasedLocks {
  protected readonly scripts: LockScripts;
  protected readonly defaultLeaseMs: number;
  protected readonly waiter: LockWaiter;
  private readonly ownsWaiter: boolean;
  private readonly keepers = new Map<string, Set<LeaseKeeper>>();

  constructor(
    protected readonly redis: RedisClient,
    protected readonly options: LockOptions,
    defaultLeaseMs: number,
  ) {
    assertPrefix(options.prefix);
    this.scripts = lockScripts(redis);
    this.defaultLeaseMs = options.defaultLeaseMs ?? defaultLeaseMs;
    this.ownsWaiter = options.waiter === undefined;
    this.waiter =
      options.waiter ??
      new LockWaiter(redis, {
        ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
        ...(options.logger === undefined ? {} : { logger: options.logger }),
      });
  }

  /** Stops the keepers started here and closes the private waiter's connection. */
  async close(): Promise<void> {
    for (const set of this.keepers.values()) for (const keeper of set) keeper.stop();
    this.keepers.clear();
    if (this.ownsWaiter) await this.waiter.close();
  }

  protected startKeeper(
    repo: string,
    opId: string,
    options: KeepOptions,
    renew: (leaseMs: number) => Promise<RenewResult>,
  ): LeaseKeeper {
    const leaseMs = options.leaseMs ?? this.defaultLeaseMs;
    lockKeys(this.options.prefix, repo);
    assertOpId(opId);
    assertLease(leaseMs);
    const keeper = new LeaseKeeper({
      leaseMs,
      renew: () => renew(leaseMs),
      onLost: options.onLost,
      ...(options.onError === undefined ? {} : { onError: options.onError }),
    });
    const key = `${repo}\n${opId}`;
    const set = this.keepers.get(key) ?? new Set();
    set.add(keeper);
    this.keepers.set(key, set);
    return keeper;
  }

  protected stopKeepers(repo: string, opId: string): void {
    const key = `${repo}\n${opId}`;
    for (const keeper of this.keepers.get(key) ?? []) keeper.stop();
    this.keepers.delete(key);
  }
}
