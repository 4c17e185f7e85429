import { startWorker } from '@pullwright/code-worker';
import { PullwrightError } from '@pullwright/core';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForJob } from './support/wait-for-job.ts';

const requester = { source: 'api' as const, user: 'dev' };
const noMerge = async () => undefined;

describe('worker retries', () => {
  let sys: TestSystem;
  afterEach(async () => sys?.stop());

  it('runs a job again after a transient error, with a backoff', async () => {
    sys = await startTestSystem({ worker: false });
    const op = await sys.runtime.store.create({
      type: 'debug',
      repo: 'acme/a',
      baseBranch: 'main',
      description: 'x',
      requester,
    });
    const starts: number[] = [];
    sys.worker = await startWorker(sys.runtime, {
      run: async ({ opId }, runtime) => {
        starts.push(Date.now());
        if (starts.length === 1) throw new PullwrightError('unavailable', 'the model API is overloaded');
        await runtime.store.transition(opId, 'running');
      },
      merge: noMerge,
    });
    await sys.runtime.queue.add('run', { opId: op.id });
    const { job, state } = await waitForJob(sys, op.id);
    expect(state).toBe('completed');
    expect(starts).toHaveLength(2);
    expect(job.attemptsStarted).toBe(2);
    // First backoff: 2 s ± 20 %.
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(1600);
    expect((await sys.runtime.store.get(op.id)).status).toBe('running');
  });

  it('never retries a final error, and ends an operation the handler left unfinished with its reason', async () => {
    sys = await startTestSystem({ worker: false });
    const op = await sys.runtime.store.create({
      type: 'fix',
      repo: 'acme/a',
      baseBranch: 'main',
      description: 'y',
      requester,
    });
    let starts = 0;
    sys.worker = await startWorker(sys.runtime, {
      run: async ({ opId }, runtime) => {
        starts++;
        await runtime.store.transition(opId, 'running');
        throw new PullwrightError('secret_found', 'the change adds an AWS access key in src/config.ts');
      },
      merge: noMerge,
    });
    await sys.runtime.queue.add('run', { opId: op.id });
    const { job, state } = await waitForJob(sys, op.id);
    // `failed` is final: the worker retries by moving a job to `delayed` (as the test above
    // shows), and BullMQ never starts a failed job again. So one start is all there will be.
    expect(state).toBe('failed');
    expect(job.failedReason).toContain('AWS access key');
    expect(job.attemptsStarted).toBe(1);
    expect(starts).toBe(1);
    const failed = await sys.runtime.store.get(op.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe('commit blocked: the change adds an AWS access key in src/config.ts');
  });
});
