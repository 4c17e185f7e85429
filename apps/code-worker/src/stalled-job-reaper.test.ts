import { bullPrefix, CODE_OPERATIONS_QUEUE, CodeQueue, OperationStore, RedisKeys } from '@pullwright/queue';
import { redisTest } from '@pullwright/testing';
import { eventually } from '@pullwright/testing/eventually';
import { Worker } from 'bullmq';
import { describe, expect } from 'vitest';
import { StalledJobReaper } from './stalled-job-reaper.ts';
import { TEST_OPERATION } from './test-operation.ts';

describe('StalledJobReaper', () => {
  redisTest(
    'fails the operation of a job BullMQ failed for stalling too often, with a reason',
    async ({ redis, prefix, connect }) => {
      const keys = new RedisKeys(prefix);
      const store = new OperationStore(redis, keys);
      const queue = new CodeQueue(redis, prefix);
      const op = await store.create(TEST_OPERATION);
      await queue.add('run', { opId: op.id });
      // A worker that takes the job, never renews its lock and never finishes: what a worker
      // killed mid-job looks like to BullMQ. With maxStalledCount 0 its first stall is final:
      // BullMQ marks the job and fails it when the worker's free slot fetches it again.
      // BullMQ needs unlimited retries on its blocking connection.
      const connection = connect({ maxRetriesPerRequest: null });
      let markStarted: () => void = () => {};
      const started = new Promise<void>((resolve) => {
        markStarted = resolve;
      });
      const worker = new Worker(
        CODE_OPERATIONS_QUEUE,
        async () => {
          await store.transition(op.id, 'running');
          markStarted();
          await new Promise(() => undefined);
        },
        {
          connection,
          prefix: bullPrefix(prefix),
          lockDuration: 200,
          stalledInterval: 150,
          maxStalledCount: 0,
          skipLockRenewal: true,
          concurrency: 2,
        },
      );
      const reaper = new StalledJobReaper({ queue: queue.queue, store, maxStalledCount: 0 });
      try {
        await started;
        // The sweep that first finds the job stalled (its lock lapses after 200 ms) reaps it.
        const reaped = await eventually(
          'a sweep reaps the stalled job',
          async () => {
            const found = await reaper.sweep();
            return found.length > 0 ? found : undefined;
          },
          { timeoutMs: 10_000, intervalMs: 100 },
        );
        expect(reaped).toEqual([op.id]);
        const failed = await store.get(op.id);
        expect(failed.status).toBe('failed');
        expect(failed.error).toContain('its worker died 1 time while running it');
        // A second pass (another worker's) finds nothing left to do.
        expect(await reaper.sweep()).toEqual([]);
      } finally {
        await worker.close(true);
        await queue.close();
      }
    },
  );
});
