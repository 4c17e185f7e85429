import { isPullwrightError, type Logger } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';
import { bullPrefix, CODE_OPERATIONS_QUEUE, type RedisClient } from '@pullwright/queue';
import { Job, QueueEvents } from 'bullmq';

interface MirrorPrefetch {
  close(): Promise<void>;
}

/**
 * Fetches the mirror of an operation's repository while its job waits for this worker (issue
 * 16: the mirror fetched when the request arrives, before the job is claimed). The prepare
 * step then finds a fetch that started after the request and fetches nothing more
 * (`syncMirrorSince`). An idle worker claims the job at once and fetches it then, as early
 * as this would; so only a busy worker prefetches, one repository at a time. A prefetch that
 * fails only costs the claim its own fetch.
 */
export async function startMirrorPrefetch(
  runtime: Pick<Runtime, 'config' | 'queue' | 'store' | 'forge' | 'workspace' | 'redactor'>,
  connection: RedisClient,
  busy: () => boolean,
  logger: Logger,
): Promise<MirrorPrefetch> {
  const events = new QueueEvents(CODE_OPERATIONS_QUEUE, {
    connection,
    prefix: bullPrefix(runtime.config.redisPrefix),
  });
  const fetching = new Set<string>();

  const prefetch = async (jobId: string) => {
    const job = await Job.fromId<{ opId?: string }>(runtime.queue.queue, jobId);
    const opId = job?.data.opId;
    const op = opId ? await runtime.store.find(opId) : undefined;
    if (!op || fetching.has(op.repo)) return;
    fetching.add(op.repo);
    const holder = `prefetch:${op.id}`;
    try {
      const auth = await runtime.forge.gitAuth(op.repo, holder);
      await runtime.workspace.syncMirror(op.repo, runtime.forge.cloneUrl(op.repo), auth);
      logger.debug({ opId: op.id, repo: op.repo }, 'mirror fetched ahead');
    } finally {
      fetching.delete(op.repo);
      await runtime.forge.revokeToken(op.repo, holder).catch(() => undefined);
    }
  };

  events.on('waiting', ({ jobId }) => {
    if (!busy()) return;
    prefetch(jobId).catch((err: unknown) =>
      logger.debug(
        { jobId, err: runtime.redactor.redact(isPullwrightError(err) ? err.message : String((err as Error)?.message)) },
        'mirror not fetched ahead; the job fetches it when claimed',
      ),
    );
  });
  events.on('error', (err) => logger.warn({ err: err.message }, 'queue events error'));
  await events.waitUntilReady();
  return {
    async close() {
      await events.close();
    },
  };
}
