import type { Runtime } from '@pullwright/pipeline';
import { eventually } from '@pullwright/testing/eventually';
import type { Job } from 'bullmq';

/**
 * Polls BullMQ until the job reaches a final state (`completed`, or `failed` once no attempt is
 * left: a job that will be retried is `delayed` or `waiting`, not `failed`). The positive event
 * a test waits for before asserting that the job changed nothing.
 */
export async function waitForJob(
  sys: { runtime: Pick<Runtime, 'queue'> },
  jobId: string,
  timeoutMs = 15_000,
): Promise<{ job: Job; state: 'completed' | 'failed' }> {
  let state: string | undefined;
  return eventually(
    () => `job ${jobId} ends (it is ${state ?? 'missing'})`,
    async () => {
      const job = await sys.runtime.queue.queue.getJob(jobId);
      state = await job?.getState();
      return job && (state === 'completed' || state === 'failed') ? { job, state } : undefined;
    },
    { timeoutMs },
  );
}
