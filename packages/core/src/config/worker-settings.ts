import { envSection } from './env-section.ts';
import { nonNegativeInt, positiveInt } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';

export const workerSettings = envSection(
  'Workers and jobs',
  {
    WORKER_CONCURRENCY: envVariable(positiveInt, {
      doc: 'Operations one worker process runs at once; each holds a worktree and a sandbox.',
      default: '2',
      readBy: READ_BY.worker,
    }),
    SHUTDOWN_GRACE_MS: envVariable(positiveInt, {
      doc: 'On SIGTERM a worker stops taking jobs and gives running ones this long to finish (60 s lets a check suite or a push end); a job still running then resumes elsewhere from its checkpoints. Orchestrators must wait longer before SIGKILL.',
      default: '60000',
      readBy: READ_BY.worker,
    }),
    STUCK_AFTER_MS: envVariable(positiveInt, {
      doc: 'A running step that appends no event for this long is reported as stuck.',
      default: '600000',
      readBy: READ_BY.worker,
    }),
    JOB_LOCK_MS: envVariable(positiveInt, {
      doc: "BullMQ's job lock, renewed every half of it: how long an event-loop stall or a Redis blip may last before the job is taken as stalled, and how long a dead worker's job waits before another worker resumes it.",
      default: '60000',
      readBy: READ_BY.worker,
    }),
    JOB_STALLED_INTERVAL_MS: envVariable(positiveInt, {
      doc: 'How often each worker looks for jobs whose lock expired (BullMQ stalledInterval).',
      default: '30000',
      readBy: READ_BY.worker,
    }),
    JOB_MAX_STALLED: envVariable(nonNegativeInt, {
      doc: 'Times a job may be recovered after its worker died before it fails for good: a job that kills its worker every time must not loop forever; 3 rides out a rolling deploy plus a crash.',
      default: '3',
      readBy: READ_BY.worker,
    }),
  },
  (env) => ({
    workerConcurrency: env.WORKER_CONCURRENCY,
    worker: {
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
      stuckAfterMs: env.STUCK_AFTER_MS,
      jobLockMs: env.JOB_LOCK_MS,
      stalledIntervalMs: env.JOB_STALLED_INTERVAL_MS,
      maxStalledCount: env.JOB_MAX_STALLED,
    },
  }),
);
