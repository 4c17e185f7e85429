import { type Logger, type Operation, silentLogger } from '@pullwright/core';
import type { Forge } from '@pullwright/forge';
import { CronSchedule, parseRepoPolicy } from '@pullwright/policy';
import type { ScheduleDefinition, ScheduleRecord, ScheduleRegistry, ScheduleTick } from '@pullwright/queue';
import { sanitizeUntrustedText } from '@pullwright/security';
import type { OperationActions } from './operation-actions.ts';

/** The file whose `schedules:` a repository runs. */
const POLICY_FILE = '.pullwright.yml';

interface ScheduledWorkDeps {
  forge: Pick<Forge, 'readFile'>;
  registry: ScheduleRegistry;
  actions: Pick<OperationActions, 'createFromPolicy'>;
  /** SCHEDULE_MIN_INTERVAL_MS: a cron whose runs come closer together is refused at sync. */
  minIntervalMs: number;
  logger?: Logger;
  now?: () => number;
}

/**
 * A repository's `schedules:` turned into work: `sync` reads the file on a branch and arms
 * one BullMQ job scheduler per entry; `runTick` is what a tick job does — one ordinary
 * operation per (schedule, tick), requested by the policy itself, so the policy's budgets
 * and approval rules apply as to any request.
 */
export class ScheduledWork {
  readonly #now: () => number;
  readonly #logger: Logger;

  constructor(private readonly deps: ScheduledWorkDeps) {
    this.#now = deps.now ?? Date.now;
    this.#logger = deps.logger ?? silentLogger();
  }

  /**
   * Reads `.pullwright.yml` on `branch` of `repo` and makes its schedules the registered
   * ones (none when the file or the key is absent). A bad file is a PolicyFileError (400)
   * naming the field; a cron more frequent than the minimum is kept, refused, with the reason.
   */
  async sync(repo: string, branch = 'main'): Promise<ScheduleRecord[]> {
    const text = await this.deps.forge.readFile(repo, branch, POLICY_FILE);
    const entries = text === undefined ? {} : (parseRepoPolicy(text).schedules ?? {});
    const definitions = Object.entries(entries).map(([name, entry]): ScheduleDefinition => {
      const gap = CronSchedule.parse(entry.cron).shortestGapMs(this.#now());
      const refused =
        gap < this.deps.minIntervalMs
          ? `runs every ${gap / 1000} s; SCHEDULE_MIN_INTERVAL_MS allows one run per ${this.deps.minIntervalMs / 1000} s at most`
          : undefined;
      return {
        repo,
        name,
        cron: entry.cron,
        type: entry.type,
        description: entry.description,
        branch: entry.branch ?? branch,
        ...(refused ? { refused } : {}),
      };
    });
    const records = await this.deps.registry.sync(repo, definitions);
    this.#logger.info({ repo, schedules: records.length }, 'schedules synced');
    return records;
  }

  /**
   * One tick of one schedule: the operation for it, created once per (schedule, tick) even
   * if the job ran twice. Nothing for a schedule paused or removed since the tick was queued.
   */
  async runTick(tick: ScheduleTick, tickMs: number): Promise<Operation | undefined> {
    const record = await this.deps.registry.get(tick.repo, tick.name);
    if (!record || record.paused || record.refused) return undefined;
    const at = new Date(tickMs).toISOString();
    const { op } = await this.deps.actions.createFromPolicy(
      {
        type: record.type,
        repo: record.repo,
        baseBranch: record.branch,
        // The repository's own file, but written by whoever could commit to it: read as untrusted text.
        description: sanitizeUntrustedText(record.description),
        requester: { source: 'policy', user: `schedule:${record.name}` },
        origin: { kind: 'schedule', name: record.name, cron: record.cron, tick: at },
      },
      `schedule:${record.repo}/${record.name}:${tickMs}`,
    );
    await this.deps.registry.recordRun(record.repo, record.name, at, op.id);
    return op;
  }
}
