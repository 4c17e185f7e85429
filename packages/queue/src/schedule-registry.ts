import { BranchName, OperationType, RepoSlug, ValidationError } from '@pullwright/core';
import { Queue } from 'bullmq';
import { z } from 'zod';
import { bullPrefix, queueTelemetry } from './code-queue.ts';
import type { RedisClient } from './redis-client.ts';
import type { RedisKeys } from './redis-keys.ts';

/** The BullMQ queue whose job schedulers tick the repositories' schedules. */
export const SCHEDULES_QUEUE = 'schedules';

/** What one tick job carries: which schedule (its record says the rest, read when it runs). */
export const ScheduleTick = z.object({ repo: RepoSlug, name: z.string().min(1).max(40) });
export type ScheduleTick = z.infer<typeof ScheduleTick>;

/** One schedule as the dashboard lists it: the entry of `.pullwright.yml`, its state, its last run. */
export const ScheduleRecord = z.object({
  repo: RepoSlug,
  name: z.string(),
  cron: z.string(),
  type: OperationType,
  description: z.string(),
  branch: BranchName,
  paused: z.boolean(),
  /** Why the entry does not run (a cron more frequent than SCHEDULE_MIN_INTERVAL_MS); no scheduler then. */
  refused: z.string().optional(),
  lastRun: z.object({ at: z.string(), opId: z.string() }).optional(),
});
export type ScheduleRecord = z.infer<typeof ScheduleRecord>;

/** What a sync writes per entry: the record without the state the registry keeps itself. */
export type ScheduleDefinition = Omit<ScheduleRecord, 'paused' | 'lastRun'>;

const idOf = (repo: string, name: string) => `${repo}/${name}`;

/**
 * The repositories' schedules: a record per schedule (Redis hash) and, for each one that
 * runs, a BullMQ job scheduler on the `schedules` queue. BullMQ keeps one scheduler per id
 * and one job per (id, tick) — the job id is derived from both — so any number of API
 * processes can sync the same schedules and one of their workers runs each tick.
 */
export class ScheduleRegistry {
  readonly queue: Queue;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {
    this.queue = new Queue(SCHEDULES_QUEUE, {
      connection: redis,
      prefix: bullPrefix(keys.prefix),
      telemetry: queueTelemetry(),
    });
  }

  async list(): Promise<Array<ScheduleRecord & { nextRunAt: string | undefined }>> {
    const raw = await this.redis.hgetall(this.keys.schedules());
    const records = Object.values(raw).map((v) => ScheduleRecord.parse(JSON.parse(v)));
    records.sort((a, b) => idOf(a.repo, a.name).localeCompare(idOf(b.repo, b.name)));
    return Promise.all(
      records.map(async (r) => {
        const scheduler = r.paused || r.refused ? undefined : await this.queue.getJobScheduler(idOf(r.repo, r.name));
        const next = scheduler?.next;
        return { ...r, nextRunAt: next ? new Date(next).toISOString() : undefined };
      }),
    );
  }

  async get(repo: string, name: string): Promise<ScheduleRecord | undefined> {
    const raw = await this.redis.hget(this.keys.schedules(), idOf(repo, name));
    return raw ? ScheduleRecord.parse(JSON.parse(raw)) : undefined;
  }

  /**
   * Makes `repo`'s schedules what `definitions` say: new and changed entries get their
   * scheduler (unless paused: a pause outlives a sync), entries gone from the file lose
   * theirs. Idempotent, so every API process may call it.
   */
  async sync(repo: string, definitions: ScheduleDefinition[]): Promise<ScheduleRecord[]> {
    const existing = (await this.list()).filter((r) => r.repo === repo);
    const wanted = new Set(definitions.map((d) => d.name));
    for (const gone of existing.filter((r) => !wanted.has(r.name))) {
      await this.queue.removeJobScheduler(idOf(repo, gone.name));
      await this.redis.hdel(this.keys.schedules(), idOf(repo, gone.name));
    }
    const records: ScheduleRecord[] = [];
    for (const d of definitions) {
      const before = existing.find((r) => r.name === d.name);
      const record: ScheduleRecord = {
        ...d,
        paused: before?.paused ?? false,
        ...(before?.lastRun ? { lastRun: before.lastRun } : {}),
      };
      await this.#write(record);
      await this.#arm(record);
      records.push(record);
    }
    return records;
  }

  /** Pauses (removes the scheduler, keeps the record) or resumes a schedule. */
  async setPaused(repo: string, name: string, paused: boolean): Promise<ScheduleRecord> {
    const record = await this.get(repo, name);
    if (!record) {
      throw new ValidationError(`no schedule ${name} on ${repo}`, [
        { field: 'name', reason: `not a schedule of ${repo} (sync the repository's .pullwright.yml first)` },
      ]);
    }
    const updated = { ...record, paused };
    await this.#write(updated);
    await this.#arm(updated);
    return updated;
  }

  /** Notes the operation a tick started. */
  async recordRun(repo: string, name: string, at: string, opId: string): Promise<void> {
    const record = await this.get(repo, name);
    if (record) await this.#write({ ...record, lastRun: { at, opId } });
  }

  close(): Promise<void> {
    return this.queue.close();
  }

  async #write(record: ScheduleRecord): Promise<void> {
    await this.redis.hset(this.keys.schedules(), idOf(record.repo, record.name), JSON.stringify(record));
  }

  async #arm(record: ScheduleRecord): Promise<void> {
    const id = idOf(record.repo, record.name);
    if (record.paused || record.refused) {
      await this.queue.removeJobScheduler(id);
      return;
    }
    const tick: ScheduleTick = { repo: record.repo, name: record.name };
    await this.queue.upsertJobScheduler(
      id,
      { pattern: record.cron, tz: 'UTC' },
      { name: 'tick', data: tick, opts: { removeOnComplete: 100, removeOnFail: 100 } },
    );
  }
}
