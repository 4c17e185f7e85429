import { mergeOperation, type Runtime, reviseOperation, runOperation } from '@pullwright/pipeline';
import { CODE_OPERATIONS_QUEUE, MergeJob, ReviseJob, RunJob } from '@pullwright/queue';
import { type Job, Worker } from 'bullmq';

export interface RunningWorker {
  worker: Worker;
  close(): Promise<void>;
}

/**
 * A BullMQ worker for the `code-operations` queue. Payloads are validated again here
 * (they crossed a process boundary); the pipeline functions own every status change.
 */
export async function startWorker(runtime: Runtime): Promise<RunningWorker> {
  const { config, logger } = runtime;
  // BullMQ needs its own connection with unlimited retries: blocking commands must survive reconnects.
  const connection = runtime.redis.duplicate({ maxRetriesPerRequest: null });
  const worker = new Worker(
    CODE_OPERATIONS_QUEUE,
    async (job: Job) => {
      switch (job.name) {
        case 'run':
          await runOperation(RunJob.parse(job.data).opId, runtime);
          return;
        case 'merge':
          await mergeOperation(MergeJob.parse(job.data).opId, runtime);
          return;
        case 'revise':
          await reviseOperation(ReviseJob.parse(job.data), runtime);
          return;
        default:
          logger.warn({ job: job.name, id: job.id }, 'unknown job name; dropped');
      }
    },
    { connection, prefix: `${config.redisPrefix}:bull`, concurrency: config.workerConcurrency, autorun: true },
  );
  worker.on('failed', (job, err) =>
    logger.error({ jobId: job?.id, err: runtime.redactor.redact(err.message) }, 'job failed'),
  );
  worker.on('error', (err) => logger.warn({ err: runtime.redactor.redact(err.message) }, 'worker error'));
  await worker.waitUntilReady();
  return {
    worker,
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}
