/** What one renewal found: the locks extended, and the ones lost since the last renewal. */
export interface RenewResult {
  renewed: string[];
  lost: string[];
}

interface LeaseKeeperOptions {
  leaseMs: number;
  renew: () => Promise<RenewResult>;
  /**
   * Called with the locks that are no longer ours: taken over after an expiry, or (when
   * Redis stayed unreachable for a whole lease) the last ones known held. The job must stop
   * writing to them; its fencing token is stale.
   */
  onLost: (lost: string[]) => void;
  onError?: (err: unknown) => void;
  /** Default leaseMs / 3: two renewals in a row may fail before the lease runs out. */
  intervalMs?: number;
}

/**
 * Keeps a lease alive while a job lives, as BullMQ's LockManager does for job locks. Renews
 * at once (to learn what is held) and then every interval; stops by itself when nothing is
 * left to renew (all lost), or on `stop()`, which the lock classes call when the owner
 * releases through them.
 */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  private expiry: NodeJS.Timeout | undefined;
  private stopped = false;
  private held: string[] = [];
  /** performance.now() deadline: the start of the last successful renewal plus the lease. */
  private validUntil = 0;

  constructor(private readonly options: LeaseKeeperOptions) {
    // Built right after an acquire: the lease started at most one round trip ago.
    this.extendTo(performance.now() + options.leaseMs);
    void this.tick();
  }

  get running(): boolean {
    return !this.stopped;
  }

  /** Whether the lease is still ours by our own clock; false once it may have run out. */
  isValid(): boolean {
    return !this.stopped && performance.now() < this.validUntil;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.expiry);
  }

  /**
   * A timer of its own, not a check after a failed renewal: with Redis unreachable a renewal
   * can hang in the client's offline queue for longer than the lease.
   */
  private extendTo(validUntil: number): void {
    this.validUntil = validUntil;
    clearTimeout(this.expiry);
    this.expiry = setTimeout(
      () => {
        if (this.stopped) return;
        this.stop();
        this.options.onLost(this.held);
      },
      Math.max(0, validUntil - performance.now()),
    );
    this.expiry.unref();
  }

  private async tick(): Promise<void> {
    const startedAt = performance.now();
    try {
      const result = await this.options.renew();
      if (this.stopped) return;
      // A lock can also vanish without being reported lost: once every lease of an owner has
      // run out, its owner index expires too and the renewal finds nothing at all.
      const lost = new Set(result.lost);
      for (const path of this.held) if (!result.renewed.includes(path)) lost.add(path);
      this.held = result.renewed;
      if (result.renewed.length > 0) this.extendTo(startedAt + this.options.leaseMs);
      if (lost.size > 0) this.options.onLost([...lost].sort());
      if (result.renewed.length === 0) return this.stop();
    } catch (err) {
      if (this.stopped) return;
      this.options.onError?.(err);
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.options.intervalMs ?? this.options.leaseMs / 3);
    // A keeper must not hold a finished process open; the job itself does that.
    this.timer.unref();
  }
}
