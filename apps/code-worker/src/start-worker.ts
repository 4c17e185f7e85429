import os from 'node:os';
import {
  type Config,
  FINAL_STATUSES,
  isPullwrightError,
  isTransientError,
  mapOutcomeText,
  type Outcome,
  outcomeOfError,
} from '@pullwright/core';
import {
  analyzeFeatureRequest,
  deployOperation,
  handleCiFailure,
  inJobScope,
  mergeOperation,
  type Runtime,
  reviseOperation,
  runOperation,
  tokenHolder,
} from '@pullwright/pipeline';
import {
  bullPrefix,
  CODE_OPERATIONS_QUEUE,
  duplicateRedis,
  JOB_CATALOG,
  type JobData,
  type JobName,
  MetricsStore,
  queueTelemetry,
  type RedisClient,
} from '@pullwright/queue';
import { DelayedError, type Job, UnrecoverableError, Worker, type WorkerOptions } from 'bullmq';
import { assertNoEviction } from './assert-no-eviction.ts';
import { eventCursor, recordJobMetrics } from './job-metrics.ts';
import { startMirrorPrefetch } from './mirror-prefetch.ts';
import { MAX_JOB_STARTS, retryDelayMs } from './retry-delay.ts';
import { STALLED_OUT, StalledJobReaper } from './stalled-job-reaper.ts';
import { StuckWatchdog } from './stuck-watchdog.ts';

export interface RunningWorker {
  worker: Worker;
  watchdog: StuckWatchdog;
  /** Jobs this process is running now (the worker's /readyz and /metrics). */
  runningJobs(): number;
  /**
   * Stops taking jobs and waits up to `graceMs` (default SHUTDOWN_GRACE_MS) for the running
   * ones, then closes. Resolves true when none was left running; a job still running is left
   * to BullMQ's stalled recovery (another worker resumes it from its checkpoints once its
   * lock expires), so the caller may exit 0 either way.
   */
  close(graceMs?: number): Promise<boolean>;
}

/** What a job runs, by job name, with its validated payload; exhaustive over the job catalog. */
type JobHandlers = { [N in JobName]: (payload: JobData<N>, runtime: Runtime) => Promise<unknown> };

const PIPELINE_HANDLERS: JobHandlers = {
  run: ({ opId }, runtime) => runOperation(opId, runtime),
  revise: (payload, runtime) => reviseOperation(payload, runtime),
  merge: ({ opId }, runtime) => mergeOperation(opId, runtime),
  deploy: ({ opId }, runtime) => deployOperation(opId, runtime),
  ci_failure: (payload, runtime) => handleCiFailure(payload, runtime),
  analyze_feature: ({ featureRequestId }, runtime) => analyzeFeatureRequest(featureRequestId, runtime),
};

function isJobName(name: string): name is JobName {
  return Object.hasOwn(JOB_CATALOG, name);
}

/** How long a job that hit a Redis outage keeps waiting for Redis before it gives up its turn. */
const REDIS_WAIT_MS = 5 * 60_000;

async function waitForRedis(runtime: Runtime, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    if (
      await runtime.redis.ping().then(
        () => true,
        () => false,
      )
    )
      return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

/**
 * The BullMQ settings of a code worker; the latency benchmark runs them with an empty handler
 * to compare against a bare BullMQ worker.
 */
export function codeWorkerOptions(config: Config, connection: RedisClient): WorkerOptions {
  const settings = config.worker;
  return {
    connection,
    prefix: bullPrefix(config.redisPrefix),
    telemetry: queueTelemetry(),
    concurrency: config.workerConcurrency,
    autorun: true,
    name: `${os.hostname()}:${process.pid}`,
    // Renewed every lockDuration / 2 while the job runs, so a job may run for hours; the lock
    // only has to outlast an event-loop stall or a Redis blip (default 60 s, JOB_LOCK_MS).
    // It is also how long a killed worker's job waits before another worker resumes it.
    lockDuration: settings.jobLockMs,
    // Each worker checks for expired locks this often (default 30 s): a dead worker's job
    // resumes within lockDuration + stalledInterval, ~90 s with the defaults.
    stalledInterval: settings.stalledIntervalMs,
    // Each recovery resumes from checkpoints, so a few are cheap; a job that keeps killing
    // its worker fails after this many and StalledJobReaper gives the operation its reason.
    maxStalledCount: settings.maxStalledCount,
  };
}

/**
 * A BullMQ worker for the `code-operations` queue. Payloads are validated again here
 * (they crossed a process boundary); the pipeline functions own every status change.
 */
export async function startWorker(runtime: Runtime, overrides: Partial<JobHandlers> = {}): Promise<RunningWorker> {
  const handlers: JobHandlers = { ...PIPELINE_HANDLERS, ...overrides };
  const { config, logger, redactor } = runtime;
  await assertNoEviction(runtime.redis, logger);
  const settings = config.worker;
  const metrics = new MetricsStore(runtime.redis, runtime.keys);
  const watchdog = new StuckWatchdog({
    redis: runtime.redis,
    keys: runtime.keys,
    store: runtime.store,
    stuckAfterMs: settings.stuckAfterMs,
    logger,
  });
  const reaper = new StalledJobReaper({
    queue: runtime.queue.queue,
    store: runtime.store,
    maxStalledCount: settings.maxStalledCount,
    logger,
  });
  const running = new Set<string>();

  /** A final error: the operation must not stay unfinished because the pipeline could not end it. */
  const failUnfinished = async (opId: string, outcome: Outcome) => {
    const op = await runtime.store.find(opId).catch(() => undefined);
    if (!op || FINAL_STATUSES.has(op.status)) return;
    await runtime.store
      .end(
        opId,
        mapOutcomeText(outcome, (t) => redactor.redact(t)),
      )
      .catch((err) => logger.warn({ opId, err: (err as Error).message }, 'could not fail the operation'));
  };

  /**
   * Runs a job with its token holder in scope for every forge call it makes (see inJobScope),
   * and revokes whatever token that holder still has when the job ends, however it ends.
   */
  const inTokenScope = async (opId: string, holder: string, handle: () => Promise<unknown>) => {
    try {
      return await inJobScope(holder, handle);
    } finally {
      const op = await runtime.store.find(opId).catch(() => undefined);
      if (op) await runtime.forge.revokeToken(op.repo, holder).catch(() => undefined);
    }
  };

  /**
   * The payload checked again against the catalog (it crossed a process boundary), and its
   * handler; `opId` is undefined for a job about no operation (a feature request's analysis).
   */
  const dispatch = (job: Job): { opId: string | undefined; run: () => Promise<unknown> } | undefined => {
    const name = job.name;
    if (!isJobName(name)) return undefined;
    const run = <N extends JobName>(n: N) => {
      const payload = JOB_CATALOG[n].schema.parse(job.data) as JobData<N>;
      const opId = 'opId' in payload ? payload.opId : undefined;
      const handle = () => handlers[n](payload, runtime);
      return { opId, run: opId ? () => inTokenScope(opId, tokenHolder(opId, n), handle) : handle };
    };
    return run(name);
  };

  const processJob = async (job: Job, token?: string) => {
    const task = dispatch(job);
    if (!task) {
      logger.warn({ job: job.name, id: job.id }, 'unknown job name; dropped');
      return;
    }
    // A job about no operation records its own outcome (see analyzeFeatureRequest).
    if (task.opId === undefined) {
      await task.run();
      return;
    }
    const { opId } = task;
    const startedMs = Date.now();
    const cursor = await eventCursor({ ...runtime, metrics }, opId).catch(() => '0-0');
    running.add(job.id ?? opId);
    watchdog.track(opId);
    try {
      await task.run();
    } catch (err) {
      const message = redactor.redact((err as Error)?.message ?? String(err));
      if (!isTransientError(err)) {
        await failUnfinished(
          opId,
          isPullwrightError(err) ? outcomeOfError(err.code, message) : { code: 'internal', detail: message },
        );
        // Never retried: the pipeline ended the operation, and a rerun could repeat side effects.
        throw new UnrecoverableError(message);
      }
      if (job.attemptsStarted >= MAX_JOB_STARTS) {
        await failUnfinished(opId, {
          code: 'stalled',
          detail: `gave up after ${job.attemptsStarted} attempts; last error: ${message}`,
        });
        throw new UnrecoverableError(message);
      }
      const delay = retryDelayMs(job.attemptsStarted);
      logger.warn({ opId, attempt: job.attemptsStarted, delay, err: message }, 'transient error; job will run again');
      // Redis is usually what went away; the job can only be rescheduled once it is back.
      // If the wait outlives the job lock, stalled recovery requeues the job instead.
      await waitForRedis(runtime, Date.now() + REDIS_WAIT_MS);
      await job.moveToDelayed(Date.now() + delay, token);
      throw new DelayedError();
    } finally {
      watchdog.untrack(opId);
      running.delete(job.id ?? opId);
      await recordJobMetrics({ ...runtime, metrics }, { name: job.name, opId, startedMs, cursor }).catch((err) =>
        logger.debug({ opId, err: (err as Error).message }, 'job metrics not recorded'),
      );
    }
  };

  // BullMQ needs its own connection with unlimited retries: blocking commands must survive reconnects.
  const connection = duplicateRedis(runtime.redis, { maxRetriesPerRequest: null });
  const worker = new Worker(CODE_OPERATIONS_QUEUE, processJob, codeWorkerOptions(config, connection));
  worker.on('failed', (job, err) => {
    logger.error({ jobId: job?.id, err: redactor.redact(err.message) }, 'job failed');
    if (job && STALLED_OUT.test(err.message)) void reaper.reap(job, err.message).catch(() => undefined);
  });
  worker.on('error', (err) => logger.warn({ err: redactor.redact(err.message) }, 'worker error'));
  await worker.waitUntilReady();
  const prefetchConnection = duplicateRedis(runtime.redis, { maxRetriesPerRequest: null });
  const prefetch = await startMirrorPrefetch(
    runtime,
    prefetchConnection,
    () => running.size >= config.workerConcurrency,
    logger,
  );
  watchdog.start();
  const sweep = () =>
    reaper.sweep().catch((err) => logger.warn({ err: redactor.redact((err as Error).message) }, 'reaper failed'));
  const reaperTimer = setInterval(sweep, settings.stalledIntervalMs);
  reaperTimer.unref();
  void sweep();

  let closing: Promise<boolean> | undefined;
  return {
    worker,
    watchdog,
    runningJobs: () => running.size,
    close(graceMs = settings.shutdownGraceMs) {
      closing ??= (async () => {
        clearInterval(reaperTimer);
        // close() stops fetching at once, then resolves when the running jobs have finished.
        const closed = worker.close().then(() => true);
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), graceMs);
        });
        const drained = await Promise.race([closed, deadline]);
        clearTimeout(timer);
        if (!drained) {
          logger.warn(
            { jobs: [...running], graceMs },
            'grace period over; running jobs are left to stalled recovery and resume from their checkpoints',
          );
        }
        await watchdog.stop();
        await prefetch.close();
        prefetchConnection.disconnect();
        connection.disconnect();
        return drained;
      })();
      return closing;
    },
  };
}
