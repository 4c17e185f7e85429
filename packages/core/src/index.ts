export {
  CONFIG_SECTIONS,
  type Config,
  ConfigError,
  ENV_VARIABLES,
  type EnvIssue,
  type EnvVariable,
  EventSource,
  internalApiUrl,
  loadConfig,
  type ProcessRole,
  readConfig,
  readGitHubPrivateKey,
  storageSettings,
} from './config.ts';
export { defineLuaCommand } from './define-lua-command.ts';
export type { DependencyLayer } from './dependency-layer.ts';
export type { DescribedEvent, EventDescription } from './describe-event.ts';
export { describeEvent, STATUS_LABELS, withDescription } from './describe-event.ts';
export {
  type ErrorCode,
  errorOutcome,
  type FieldIssue,
  isPullwrightError,
  NotFoundError,
  PullwrightError,
  ValidationError,
} from './errors.ts';
export {
  FeatureAnalysis,
  FeatureRequest,
  FeatureRequestStatus,
  IMPLEMENT_FROM,
  TRIAGE_FROM,
} from './feature-request.ts';
export { FixReport } from './fix-report.ts';
export { inSpan, TRACER_NAME } from './in-span.ts';
export { listenOrExplain } from './listen-or-explain.ts';
export { createLogger, type Logger, silentLogger } from './logger.ts';
export { type NetworkAllowEntry, NetworkAllowText, parseNetworkAllowEntry } from './network-allow-entry.ts';
export type { BudgetDecision } from './operation.ts';
export {
  ApprovalRecord,
  BranchName,
  Budget,
  BudgetContract,
  BudgetPause,
  branchNameFor,
  Checkpoint,
  CheckResult,
  CheckRun,
  CommitSignature,
  DeployRecord,
  decideBudget,
  decidePlan,
  EvalAttempt,
  Evidence,
  emptyUsage,
  FeatureContext,
  FeatureRequestId,
  FINAL_STATUSES,
  Finding,
  LockWait,
  OPERATION_STATUSES,
  Operation,
  OperationContext,
  OperationPriority,
  OperationStatus,
  OperationType,
  Origin,
  PlanConfirmation,
  type PlanDecision,
  RepoSlug,
  Requester,
  RequesterSource,
  RiskAssessment,
  StuckReport,
  TargetFiles,
  Usage,
} from './operation.ts';
export type { OperationEventDataOut } from './operation-event.ts';
export {
  budgetDecisionEvent,
  checkEventData,
  eventType,
  type OperationEvent,
  type OperationEventDataOf,
  type OperationEventInput,
  OperationEventType,
  readEvent,
  StepFacts,
} from './operation-event.ts';
export { originLabel } from './origin-label.ts';
export {
  describeOutcome,
  type EndStatus,
  type FailureCode,
  mapOutcomeText,
  OUTCOME_KINDS,
  Outcome,
  type OutcomeCode,
  outcomeOfError,
  outcomeStatus,
} from './outcome.ts';
export { type DiffFile, type DiffLine, parseUnifiedDiff } from './parse-unified-diff.ts';
export { Plan, PlanStep } from './plan.ts';
export type { ResolvedPathRule } from './policy.ts';
export { ACTIONS, Action, DEFAULT_TRIGGERS, Policy, ROLES, Role } from './policy.ts';
export { Review } from './review.ts';
export {
  interdiffPath,
  LedgerEntry,
  LedgerRound,
  LedgerSource,
  lastReviewedSha,
  recordRound,
  settleRound,
} from './review-ledger.ts';
export { InvalidTransitionError, TRANSITIONS, type TransitionPatch, transition } from './state-machine.ts';
export { isRedisUnavailable, isTransientError } from './transient-errors.ts';
export { withoutHostPaths } from './without-host-paths.ts';
