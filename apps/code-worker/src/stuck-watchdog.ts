import {
  isPullwrightError,
  type Logger,
  type Operation,
  type OperationEventInput,
  silentLogger,
} from '@pullwright/core';
import type { OperationStore, RedisClient, RedisKeys } from '@pullwright/queue';

/** The watchdog's own events: they report silence, so they are not progress. */
const OWN_EVENTS = new Set(['stuck', 'unstuck']);
/** Events read back per check; the watchdog's own reports are at most a couple of them. */
const LOOKBACK = 20;

interface StuckWatchdogOptions {
  redis: RedisClient;
  keys: RedisKeys;
  store: OperationStore;
  stuckAfterMs: number;
  /** Default: a quarter of stuckAfterMs, at most 30 s. */
  intervalMs?: number;
  logger?: Logger;
  now?: () => number;
}

interface RecentEvent {
  /** Stream id time: Redis's clock, the same for every worker. */
  ms: number;
  type: string;
  step: string | undefined;
}

/**
 * Watches the operations this worker is running. When one appends no event for
 * `stuckAfterMs` (a hung check, a model call that never returns, a git command waiting on a
 * prompt) the watchdog reports it: a `stuck` event and `op.stuck` with the step and the
 * silence so far. The next event clears it (`unstuck`). It only reports: ending the step is
 * the budgets' and timeouts' job, and a report reaches a person either way.
 */
export class StuckWatchdog {
  private readonly tracked = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly logger: Logger;
  private readonly now: () => number;
  readonly intervalMs: number;

  constructor(private readonly options: StuckWatchdogOptions) {
    this.logger = options.logger ?? silentLogger();
    this.now = options.now ?? Date.now;
    this.intervalMs = options.intervalMs ?? Math.max(250, Math.min(30_000, Math.floor(options.stuckAfterMs / 4)));
  }

  track(opId: string): void {
    this.tracked.add(opId);
  }

  untrack(opId: string): void {
    this.tracked.delete(opId);
  }

  start(): void {
    this.timer ??= setInterval(() => {
      this.running ??= this.check()
        .then(() => undefined)
        .catch((err) => this.logger.warn({ err: (err as Error).message }, 'watchdog check failed'))
        .finally(() => {
          this.running = undefined;
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass over the tracked operations; returns the ids reported stuck in this pass. */
  async check(): Promise<string[]> {
    const reported: string[] = [];
    for (const opId of [...this.tracked]) {
      if (await this.checkOne(opId)) reported.push(opId);
    }
    return reported;
  }

  private async checkOne(opId: string): Promise<boolean> {
    const progress = (await this.recentEvents(opId)).filter((e) => !OWN_EVENTS.has(e.type));
    const last = progress[0];
    if (!last) return false;
    const lastMs = last.ms;
    const idleMs = this.now() - lastMs;
    const op = await this.options.store.get(opId);
    // Waiting for another operation's files, or for a person (the plan, the budget pause), is not being stuck.
    const waitsForPerson = op.planConfirmation?.state === 'pending' || op.budgetContract?.pause?.state === 'pending';
    if (op.status !== 'running' || op.waiting || waitsForPerson) return false;
    if (op.stuck && Date.parse(op.stuck.since) < lastMs) {
      await this.write(opId, (cur) => withoutStuck(cur), {
        type: 'unstuck',
        data: { afterMs: lastMs - Date.parse(op.stuck.since) },
      });
      return false;
    }
    if (idleMs < this.options.stuckAfterMs || op.stuck) return false;
    const step = progress.find((e) => e.step !== undefined)?.step ?? last.type;
    const since = new Date(lastMs).toISOString();
    this.logger.warn({ opId, step, idleMs }, 'operation is stuck: no event for too long');
    await this.write(opId, (cur) => ({ ...cur, stuck: { step, since, idleMs }, updatedAt: new Date().toISOString() }), {
      type: 'stuck',
      data: { step, idleMs, since },
    });
    return true;
  }

  /** Newest first. */
  private async recentEvents(opId: string): Promise<RecentEvent[]> {
    const entries = (await this.options.redis.xrevrange(
      this.options.keys.events(opId),
      '+',
      '-',
      'COUNT',
      LOOKBACK,
    )) as [string, string[]][];
    return entries.map(([id, fields]) => {
      const map = new Map<string, string>();
      for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
      const field = (name: string) => map.get(name);
      let step: string | undefined;
      if (field('type') === 'step') {
        const data = JSON.parse(field('data') ?? '{}') as { step?: unknown };
        if (typeof data.step === 'string') step = data.step;
      }
      return { ms: Number(id.split('-')[0]), type: field('type') ?? 'unknown', step };
    });
  }

  private async write(opId: string, change: (op: Operation) => Operation, event: OperationEventInput): Promise<void> {
    try {
      await this.options.store.update(opId, change, event);
    } catch (err) {
      if (!isPullwrightError(err)) throw err;
      this.logger.warn({ opId, err: err.message }, 'watchdog could not update the operation');
    }
  }
}

function withoutStuck(op: Operation): Operation {
  const next = { ...op, updatedAt: new Date().toISOString() };
  delete next.stuck;
  return next;
}
