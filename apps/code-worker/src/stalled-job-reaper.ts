import { FINAL_STATUSES, isPullwrightError, type Logger, silentLogger } from '@pullwright/core';
import type { OperationStore } from '@pullwright/queue';
import type { Job, Queue } from 'bullmq';

/** BullMQ's failedReason when a job stalled more often than maxStalledCount. */
export const STALLED_OUT = /stalled more than allowable limit/i;
/** Newest failed jobs looked at per pass; jobs fail rarely, and a pass runs every stalledInterval. */
const PAGE = 100;

interface StalledJobReaperOptions {
  queue: Queue;
  store: OperationStore;
  maxStalledCount: number;
  logger?: Logger;
}

/**
 * Ends the operations whose job BullMQ gave up on. When a job's worker dies more than
 * maxStalledCount times, BullMQ marks the job and fails it when a worker next fetches it,
 * without running any of our code: the operation would stay `running` forever. The worker
 * that sees the `failed` event reaps it at once, and every worker sweeps the failed set on a
 * timer for the ones missed (a worker that died in between); the store's versioned write
 * makes their races harmless.
 */
export class StalledJobReaper {
  private readonly logger: Logger;

  constructor(private readonly options: StalledJobReaperOptions) {
    this.logger = options.logger ?? silentLogger();
  }

  /** One pass; returns the operation ids it failed. */
  async sweep(): Promise<string[]> {
    const failed = await this.options.queue.getFailed(0, PAGE - 1);
    const reaped: string[] = [];
    for (const job of failed) {
      if (job && (await this.reap(job, job.failedReason))) reaped.push(job.data.opId);
    }
    return reaped;
  }

  /** Fails the operation of `job` if BullMQ failed the job for stalling; true when it did. */
  async reap(job: Job, failedReason: string | undefined): Promise<boolean> {
    if (!STALLED_OUT.test(failedReason ?? '')) return false;
    const opId = typeof job.data?.opId === 'string' ? job.data.opId : undefined;
    if (!opId) return false;
    const op = await this.options.store.find(opId);
    if (!op || FINAL_STATUSES.has(op.status) || op.status === 'awaiting_approval') return false;
    const deaths = this.options.maxStalledCount + 1;
    const reason =
      `its worker died ${deaths} time${deaths === 1 ? '' : 's'} while running it (crashed or killed); ` +
      `gave up during the ${job.name} job (last status ${op.status})`;
    try {
      await this.options.store.end(opId, { code: 'stalled', detail: reason }, {}, { step: job.name, stalled: true });
      this.logger.warn({ opId, job: job.id }, 'job stalled too often; operation failed');
      return true;
    } catch (err) {
      // Another worker got there first, or the status cannot fail (approved): nothing to do.
      if (!isPullwrightError(err)) throw err;
      return false;
    }
  }
}
