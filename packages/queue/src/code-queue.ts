import { ValidationError } from '@pullwright/core';
import { type Job, Queue, type Telemetry } from 'bullmq';
import { BullMQOtel } from 'bullmq-otel';
import { CODE_OPERATIONS_QUEUE, JOB_CATALOG, type JobName, type JobPayload } from './job-schemas.ts';
import type { RedisClient } from './redis-client.ts';

/**
 * BullMQ's keys for this deployment. The `{…}` hash tag keeps every queue key in one Redis
 * Cluster slot, which BullMQ's multi-key scripts need.
 */
export function bullPrefix(prefix: string): string {
  return `{${prefix}}:bull`;
}

/**
 * BullMQ's OpenTelemetry bridge: a span for each enqueue and each job run, and the trace
 * context carried in the job from the API to the worker, so one operation is one trace.
 * Costs nothing while no tracer provider is registered (OTEL_EXPORTER_OTLP_ENDPOINT unset).
 */
export function queueTelemetry(): Telemetry {
  return new BullMQOtel('pullwright');
}

/**
 * Enqueues code operation jobs, each as the job catalog says (schema, id, options): the id
 * is derived from the payload, so enqueuing the same thing twice is a no-op in BullMQ.
 */
export class CodeQueue {
  readonly queue: Queue;

  constructor(connection: RedisClient, prefix: string) {
    this.queue = new Queue(CODE_OPERATIONS_QUEUE, {
      connection,
      prefix: bullPrefix(prefix),
      telemetry: queueTelemetry(),
    });
  }

  /** Validates and enqueues; returns the job id. */
  async add<N extends JobName>(name: N, payload: JobPayload<N>): Promise<string> {
    const spec = JOB_CATALOG[name];
    const parsed = spec.schema.safeParse(payload);
    if (!parsed.success) {
      throw new ValidationError(
        `invalid ${name} job`,
        parsed.error.issues.map((i) => ({ field: i.path.join('.'), reason: i.message })),
      );
    }
    const jobId = (spec.jobId as (p: unknown) => string)(parsed.data);
    const delayMs = 'delayMs' in spec ? (spec.delayMs as (p: unknown) => number)(parsed.data) : 0;
    const priority = 'priority' in spec ? (spec.priority as (p: unknown) => number)(parsed.data) : undefined;
    await this.queue.add(name, parsed.data, {
      ...spec.options,
      jobId,
      ...(delayMs > 0 ? { delay: delayMs } : {}),
      ...(priority ? { priority } : {}),
    });
    return jobId;
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

  /**
   * The job that has waited longest. `waiting` is in arrival order, but `prioritized` (every
   * run job) is ordered by priority first: its oldest job can sit anywhere, so up to
   * `scan` of them are read. Beyond that the answer is a lower bound, which is what a
   * "stuck queue" gauge needs.
   */
  async oldestWaiting(scan = 500): Promise<Job | undefined> {
    const [head, prioritized] = await Promise.all([
      this.queue.getJobs(['waiting'], 0, 0, true),
      this.queue.getJobs(['prioritized'], 0, scan - 1, true),
    ]);
    return [...head, ...prioritized]
      .filter((j) => j?.timestamp)
      .reduce<Job | undefined>((oldest, j) => (!oldest || j.timestamp < oldest.timestamp ? j : oldest), undefined);
  }

  async counts(): Promise<Record<string, number>> {
    // Run jobs carry a priority, so BullMQ keeps them in `prioritized`, not `waiting`.
    return this.queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'completed', 'failed');
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
