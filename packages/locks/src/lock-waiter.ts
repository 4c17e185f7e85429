import { type Logger, silentLogger } from '@pullwright/core';
import type { RedisClient } from './lock-scripts.ts';
import { LockWaitError } from './lock-wait-error.ts';

export interface LockHolder {
  path: string;
  opId: string;
  /** When the holder took the lock, ms since the epoch (Redis server time). */
  since: number;
}

/** One look at the locks being waited for. */
export interface LockProbe {
  /** Empty when everything waited for is free. */
  heldBy: LockHolder[];
  /** Time left on the earliest-expiring blocking lease, so a dead holder is noticed on time. */
  expiresInMs: number | null;
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** Give up after this long with a `LockWaitError` (`conflict`); default: wait until free or aborted. */
  timeoutMs?: number;
}

interface LockWaiterOptions {
  /**
   * Re-check at least this often (default 1000 ms). Pub/sub is at-most-once: a message sent
   * while the subscriber reconnects is gone, so polling is what guarantees progress.
   */
  pollMs?: number;
  logger?: Logger;
}

interface ChannelEntry {
  listeners: Set<() => void>;
  ready: Promise<unknown>;
}

/**
 * Lock-aware waiting: resolves when a probe finds the locks free. Woken early by release
 * messages on the repo's channel (one shared subscriber connection), and by a timer at the
 * poll interval or when the blocking lease runs out, whichever comes first.
 */
export class LockWaiter {
  readonly pollMs: number;
  private readonly logger: Logger;
  private subscriber: RedisClient | undefined;
  private readonly channels = new Map<string, ChannelEntry>();

  constructor(
    private readonly redis: RedisClient,
    options: LockWaiterOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 1000;
    this.logger = options.logger ?? silentLogger();
  }

  async wait(
    channel: string,
    subject: { repo: string; paths: string[] },
    probe: () => Promise<LockProbe>,
    options: WaitOptions = {},
  ): Promise<void> {
    const { signal } = options;
    const deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + options.timeoutMs;
    let heldBy: LockHolder[] = [];
    const fail = (reason: 'timeout' | 'aborted') => new LockWaitError({ ...subject, reason, heldBy });
    if (signal?.aborted) throw fail('aborted');

    let woken = false;
    let wake: (() => void) | undefined;
    const onRelease = () => {
      woken = true;
      wake?.();
    };
    // Subscribe before the first probe: a release between probe and subscribe would be missed.
    const unsubscribe = await this.subscribe(channel, onRelease);
    try {
      for (;;) {
        if (signal?.aborted) throw fail('aborted');
        woken = false;
        const state = await probe();
        heldBy = state.heldBy;
        if (heldBy.length === 0) return;
        const remaining = deadline - performance.now();
        if (remaining <= 0) throw fail('timeout');
        // +1 ms: Redis treats a key as expired only once its deadline has passed.
        const untilExpiry = state.expiresInMs === null ? Number.POSITIVE_INFINITY : state.expiresInMs + 1;
        await new Promise<void>((resolve) => {
          // A release or an abort may have come while the probe ran: its event has fired already.
          if (woken || signal?.aborted) return resolve();
          const done = () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            wake = undefined;
            resolve();
          };
          const timer = setTimeout(done, Math.max(0, Math.min(this.pollMs, remaining, untilExpiry)));
          wake = done;
          signal?.addEventListener('abort', done, { once: true });
        });
      }
    } finally {
      unsubscribe();
    }
  }

  /** Closes the subscriber connection; waits in progress fall back to polling until it reconnects. */
  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.channels.clear();
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  private async subscribe(channel: string, listener: () => void): Promise<() => void> {
    this.subscriber ??= this.createSubscriber();
    const subscriber = this.subscriber;
    let entry = this.channels.get(channel);
    if (!entry) {
      entry = { listeners: new Set(), ready: subscriber.subscribe(channel) };
      this.channels.set(channel, entry);
    }
    entry.listeners.add(listener);
    const current = entry;
    const unsubscribe = () => {
      current.listeners.delete(listener);
      if (current.listeners.size === 0 && this.channels.get(channel) === current) {
        this.channels.delete(channel);
        subscriber.unsubscribe(channel).catch(() => undefined);
      }
    };
    try {
      await current.ready;
    } catch (err) {
      unsubscribe();
      throw err;
    }
    return unsubscribe;
  }

  private createSubscriber(): RedisClient {
    const subscriber = this.redis.duplicate();
    subscriber.on('message', (channel: string) => {
      for (const listener of this.channels.get(channel)?.listeners ?? []) listener();
    });
    subscriber.on('error', (err: Error) => {
      this.logger.warn({ err: err.message }, 'lock release subscriber error; waiters keep polling');
    });
    return subscriber;
  }
}
