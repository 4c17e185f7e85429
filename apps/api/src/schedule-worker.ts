import type { Runtime } from '@pullwright/pipeline';
import { bullPrefix, duplicateRedis, queueTelemetry, SCHEDULES_QUEUE, ScheduleTick } from '@pullwright/queue';
import { Worker } from 'bullmq';

/** How long closing waits for BullMQ before it disconnects (see `close`). */
const CLOSE_GRACE_MS = 2000;

/**
 * Each API process runs one BullMQ worker on the `schedules` queue: BullMQ hands each tick
 * job to exactly one of them, and the operation is created once per (schedule, tick) even if
 * a job is retried. A tick carries the time it was scheduled for (`prevMillis`), so a late
 * job still names its own tick.
 */
export async function startScheduleWorker(
  runtime: Pick<Runtime, 'redis' | 'config' | 'scheduledWork' | 'logger' | 'redactor'>,
) {
  const connection = duplicateRedis(runtime.redis, { maxRetriesPerRequest: null });
  const worker = new Worker(
    SCHEDULES_QUEUE,
    async (job) => {
      const tickMs = job.opts.prevMillis ?? job.timestamp;
      const op = await runtime.scheduledWork.runTick(ScheduleTick.parse(job.data), tickMs);
      return op ? { opId: op.id } : { skipped: true };
    },
    { connection, prefix: bullPrefix(runtime.config.redisPrefix), telemetry: queueTelemetry(), concurrency: 1 },
  );
  worker.on('failed', (job, err) =>
    runtime.logger.warn({ jobId: job?.id, err: runtime.redactor.redact(err.message) }, 'schedule tick failed'),
  );
  worker.on('error', (err) =>
    runtime.logger.warn({ err: runtime.redactor.redact(err.message) }, 'schedule worker error'),
  );
  await worker.waitUntilReady();
  return {
    /**
     * Stops taking ticks. With Redis down (an outage, a stop) BullMQ's close would wait for
     * the connection forever; a tick is short and runs once per (schedule, tick) even when
     * re-delivered, so close waits at most CLOSE_GRACE_MS, then disconnects.
     */
    async close() {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_GRACE_MS);
      });
      await Promise.race([worker.close(true).catch(() => undefined), bound]);
      clearTimeout(timer);
      // Not awaited: with Redis down it waits for the connection too.
      worker.disconnect().catch(() => undefined);
      connection.disconnect();
    },
  };
}
