export { AttemptResult, buildReport, EvalReport, FAILURE_REASONS, taskResult } from './eval-report.ts';
export { EvalRunStore } from './eval-run-store.ts';
export { EvalRunner } from './eval-runner.ts';
export { EvalTask, readTasks, taskLine } from './eval-task.ts';
export { formatReport } from './format-report.ts';
export { replayRecordings } from './replay-recordings.ts';
export { TaskMiner } from './task-miner.ts';
