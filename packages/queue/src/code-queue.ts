import { ValidationError } from '@pullwright/core';
import { Queue } from 'bullmq';
import { CODE_OPERATIONS_QUEUE, JOB_SCHEMAS, type JobName, type JobPayload } from './job-schemas.ts';
import type { RedisClient } from './redis-client.ts';

/**
 * BullMQ's keys for this deployment. The `{…}` hash tag keeps every queue key in one Redis
 * Cluster slot, which BullMQ's multi-key scripts need.
 */
export function bullPrefix(prefix: string): string {
  return `{${prefix}}:bull`;
}

/** Kept so a duplicate enqueue within a day is still recognised as a duplicate. */
const KEEP_COMPLETED = { age: 24 * 3600, count: 5000 };

/**
 * Enqueues code operation jobs. The job id is derived from the operation (and for merges,
 * the approved sha), so enqueuing the same thing twice is a no-op in BullMQ.
 */
export class CodeQueue {
  readonly queue: Queue;

  constructor(connection: RedisClient, prefix: string) {
    this.queue = new Queue(CODE_OPERATIONS_QUEUE, { connection, prefix: bullPrefix(prefix) });
  }

  static jobId<N extends JobName>(name: N, payload: JobPayload<N>): string {
    return name === 'merge'
      ? `${payload.opId}-merge-${(payload as JobPayload<'merge'>).headSha.slice(0, 12)}`
      : payload.opId;
  }

  async add<N extends JobName>(name: N, payload: JobPayload<N>): Promise<void> {
    const parsed = JOB_SCHEMAS[name].safeParse(payload);
    if (!parsed.success) {
      throw new ValidationError(
        `invalid ${name} job`,
        parsed.error.issues.map((i) => ({ field: i.path.join('.'), reason: i.message })),
      );
    }
    await this.queue.add(name, parsed.data, {
      jobId: CodeQueue.jobId(name, payload),
      removeOnComplete: KEEP_COMPLETED,
      removeOnFail: KEEP_COMPLETED,
    });
  }

  /** Removes a job that has not started; true when it was removed. */
  async removeWaiting(jobId: string): Promise<boolean> {
    const job = await this.queue.getJob(jobId);
    if (!job) return false;
    const state = await job.getState();
    if (state !== 'waiting' && state !== 'delayed' && state !== 'prioritized') return false;
    await job.remove();
    return true;
  }

  async counts(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
