export type { ChangeCandidate } from './change-candidate.ts';
export {
  AttemptReason,
  AttemptResult,
  buildReport,
  chooseAttempt,
  compareRuns,
  EvalReport,
  FAILURE_REASONS,
  RunComparison,
  TaskResult,
  taskResult,
} from './eval-report.ts';
export { EvalRunStore } from './eval-run-store.ts';
export { EvalRunner, type EvalRunnerDeps, type EvalRunOptions } from './eval-runner.ts';
export { EvalTask, readTasks, taskLine } from './eval-task.ts';
export { formatReport } from './format-report.ts';
export { replayRecordings } from './replay-recordings.ts';
export { type MineOptions, type MineResult, type SkippedChange, TaskMiner, type TaskMinerDeps } from './task-miner.ts';
export { testOutcomes } from './test-outcomes.ts';
export { wilsonInterval } from './wilson-interval.ts';
