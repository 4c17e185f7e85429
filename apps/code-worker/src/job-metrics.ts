import type { OperationEvents, OperationStore, RedisClient, RedisKeys } from '@pullwright/queue';
import { type MetricsStore, stepDurations } from '@pullwright/queue';

interface JobMetricsDeps {
  redis: RedisClient;
  keys: RedisKeys;
  store: OperationStore;
  events: OperationEvents;
  metrics: MetricsStore;
}

/** Where a job attempt starts reading its operation's events: the newest id before it ran. */
export async function eventCursor(deps: JobMetricsDeps, opId: string): Promise<string> {
  const newest = (await deps.redis.xrevrange(deps.keys.events(opId), '+', '-', 'COUNT', 1)) as [string, string[]][];
  return newest[0]?.[0] ?? '0-0';
}

/**
 * Records what one job attempt did, for /metrics: the duration of each step it finished
 * (from the events it appended), the whole job's duration under its job name (`run`,
 * `merge`), and the growth of the operation's token and cost usage.
 */
export async function recordJobMetrics(
  deps: JobMetricsDeps,
  job: { name: string; opId: string; startedMs: number; cursor: string },
): Promise<void> {
  const events = await deps.events.list(job.opId, job.cursor, 10_000);
  const durations = stepDurations(events);
  durations.push({ step: job.name, seconds: (Date.now() - job.startedMs) / 1000 });
  // Usage first: a recorded job duration then means all of the job's metrics are in.
  const op = await deps.store.find(job.opId);
  if (op) await deps.metrics.meterUsage(op.id, op.usage);
  await deps.metrics.recordSteps(durations);
}
