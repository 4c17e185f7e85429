import type { RedisClient, RedisKeys } from '@pullwright/queue';
import { EvalReport } from './eval-report.ts';

/**
 * Runs kept: a run's report is a few KiB per task, and a trend needs the last few dozen runs;
 * the oldest go first.
 */
const RUNS_KEPT = 200;

/**
 * Evaluation reports in the service's Redis, newest first: what the dashboard's trend and
 * `/metrics` read. The index is a sorted set by finish time; each report a JSON value.
 */
export class EvalRunStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  #index(): string {
    return `${this.keys.prefix}:eval:runs`;
  }

  #report(run: string): string {
    return `${this.keys.prefix}:eval:run:${run}`;
  }

  async put(report: EvalReport): Promise<void> {
    // The report first: an index entry never points at nothing.
    await this.redis.set(this.#report(report.run), JSON.stringify(EvalReport.parse(report)));
    await this.redis.zadd(this.#index(), Date.parse(report.finishedAt), report.run);
    const dropped = await this.redis.zrange(this.#index(), 0, -(RUNS_KEPT + 1));
    if (dropped.length > 0) {
      await this.redis.zrem(this.#index(), ...dropped);
      await this.redis.del(...dropped.map((r) => this.#report(r)));
    }
  }

  async get(run: string): Promise<EvalReport | undefined> {
    const raw = await this.redis.get(this.#report(run));
    return raw ? EvalReport.parse(JSON.parse(raw)) : undefined;
  }

  /** The newest `limit` reports, newest first. */
  async list(limit = 50): Promise<EvalReport[]> {
    const runs = await this.redis.zrevrange(this.#index(), 0, limit - 1);
    if (runs.length === 0) return [];
    // One key per call: on a Cluster the reports live in different slots.
    const raws = await Promise.all(runs.map((r) => this.redis.get(this.#report(r))));
    return raws.flatMap((raw) => (raw ? [EvalReport.parse(JSON.parse(raw))] : []));
  }

  /** The newest run of `suite`, whatever its model: what a new run of the same tasks is compared with. */
  async latest(suite: string): Promise<EvalReport | undefined> {
    return (await this.list(RUNS_KEPT)).find((r) => r.suite === suite);
  }
}
