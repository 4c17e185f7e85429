import type { Runtime } from '@pullwright/pipeline';
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
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await sys.runtime.queue.queue.getJob(jobId);
    const state = await job?.getState();
    if (job && (state === 'completed' || state === 'failed')) return { job, state };
    if (Date.now() > deadline) throw new Error(`job ${jobId} is still ${state ?? 'missing'}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
