import type { CodeQueue } from '@pullwright/queue';

interface QueueHealth {
  counts: Record<string, number>;
  /** Worker connections BullMQ sees (CLIENT LIST); null where the Redis host forbids CLIENT LIST. */
  workers: { ageS: number; idleS: number }[] | null;
  oldestWaiting: { opId: string; name: string; waitingMs: number } | null;
}

/** Counts per state, workers online and the oldest job still waiting: enough to tell a stuck queue. */
export async function dashboardQueueHealth(queue: CodeQueue, now = Date.now()): Promise<QueueHealth> {
  const q = queue.queue;
  const [counts, clients, oldest] = await Promise.all([
    q.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'completed', 'failed'),
    q.getWorkers().catch(() => undefined),
    queue.oldestWaiting(),
  ]);
  const workers =
    clients && !clients.some((c) => c.name?.includes('does not support'))
      ? clients.map((c) => ({ ageS: Number(c.age ?? 0), idleS: Number(c.idle ?? 0) }))
      : null;
  return {
    counts,
    workers,
    oldestWaiting: oldest
      ? {
          opId: String((oldest.data as { opId?: string }).opId ?? oldest.id),
          name: oldest.name,
          waitingMs: now - oldest.timestamp,
        }
      : null,
  };
}
