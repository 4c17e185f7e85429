export {
  ARTIFACT_NAME,
  type ArtifactStore,
  artifactAppender,
  EVAL_CHANGE_ARTIFACT,
  KEPT_DIFF_ARTIFACT,
  sortArtifactNames,
  TRANSCRIPT_ARTIFACT,
} from './artifact-store.ts';
export { auditTrail } from './audit-trail.ts';
export { bullPrefix, CodeQueue, queueTelemetry } from './code-queue.ts';
export { ConversationCheckpoints } from './conversation-checkpoints.ts';
export type { DaySpend } from './daily-spend.ts';
export { DailySpend } from './daily-spend.ts';
export { EventSourceLog } from './event-source-log.ts';
export { FeatureRequestStore, type NewFeatureRequest } from './feature-request-store.ts';
export {
  CODE_OPERATIONS_QUEUE,
  JOB_CATALOG,
  type JobData,
  type JobName,
  ReviewFeedback,
  ReviseJob,
  type ReviseJobPayload,
} from './job-schemas.ts';
export { stepDurations } from './metrics-step-durations.ts';
export { MetricsStore, type MetricsTotals, STEP_BUCKETS_S } from './metrics-store.ts';
export { OperationEvents } from './operation-events.ts';
export { OperationFeed } from './operation-feed.ts';
export { OperationInbox } from './operation-inbox.ts';
export { type NewOperation, OperationStore } from './operation-store.ts';
export { RedisArtifactStore } from './redis-artifact-store.ts';
export { connectRedis, createRedisClient, duplicateRedis, type RedisClient } from './redis-client.ts';
export { RedisKeys } from './redis-keys.ts';
export { type RedisServerHandle, startRedisServer } from './redis-server.ts';
export {
  SCHEDULES_QUEUE,
  type ScheduleDefinition,
  ScheduleRecord,
  ScheduleRegistry,
  ScheduleTick,
} from './schedule-registry.ts';
