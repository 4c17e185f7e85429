import type { BaselineCheck, BudgetTracker, CheckRun, FixReportEntry, RepositoryInstructions } from '@pullwright/agent';
import type { McpServer } from '@pullwright/policy';
import type { GitAuth } from '@pullwright/security';
import type { PreparedWorkspace } from '@pullwright/workspace';
import type { RepoChecks, RepoCommands } from '../checks/repo-checks.ts';
import type { FrameContext } from '../frame/job-frame.ts';
import type { OperationFileLocks } from '../gates/operation-file-locks.ts';
import type { WorkspaceGate } from '../gates/workspace-gate.ts';
import type { RunRecord } from './run-record.ts';
import type { TreeDependencies } from './tree-dependencies.ts';

/** What the prepare step sets up; every later step of a run or a revision reads it. */
export interface PreparedWork {
  ws: PreparedWorkspace;
  /**
   * Resolves once `ws.dir` holds the worktree. A new run's is checked out beside the model's
   * first turn (issue 29): the workspace gate's tools, reads and checks wait for it, and so
   * does the install. Rejects with the job's end (a StopOperation) when the checkout failed.
   */
  checkedOut: Promise<void>;
  branch: string;
  auth: GitAuth | undefined;
  /** The base commit: what the checks' baseline and the PR's diff are measured against. */
  baseSha: string;
  /** Where this job's change starts: the base for a run, the PR's head for a revision. */
  startSha: string;
  /** Install, checks and lint, as the base commit configures them. */
  commands: RepoCommands;
  /** The worktree's dependencies, installed beside the model; `checks` and the gate's commands wait for them. */
  dependencies: TreeDependencies;
  /** The checks in this job's worktree, reporting each run as a `check` event. */
  checks: RepoChecks;
  gate: WorkspaceGate;
  budget: BudgetTracker;
  /** The numbered artifacts of this operation (model calls, check runs) and its reports. */
  record: RunRecord;
  /** The repository's instruction files, as the base commit has them (issue 31). */
  instructions: RepositoryInstructions;
  /** The MCP servers the service and the repository policy configure (issue 31). */
  mcpServers: McpServer[];
}

/** A job that changes code (run, revise): the frame's context plus the work its steps build up. */
export interface WorkContext extends FrameContext {
  readonly kind: 'run' | 'revise';
  readonly locks: OperationFileLocks;
  /** The worktree's name: the operation id, or `<id>-revision` (a revision never shares the run's). */
  readonly worktreeId: string;
  readonly tokenHolder: string;
  /** The scope of this job's solve journal: `run`, or `revise:<request id>` (see `ConversationCheckpoints`). */
  readonly conversation: string;
  work?: PreparedWork;
  /** The base's check results: known at once when stored, else still running beside the model (see the baseline step). */
  baseline?: Promise<Record<string, BaselineCheck>>;
  /** Stops a baseline still running when the job ends first. */
  baselineRun?: AbortController;
  /** The checks as the model's loop last ran them on the final tree (verify reuses them). */
  finalChecks?: CheckRun[];
  /** The fixer's reports of this job's solve, for the failure report. */
  fixReports?: FixReportEntry[];
  /** Time a person took to confirm the plan: not the model's time. */
  confirmationWaitMs: number;
}

/** The prepared work; a step that runs before prepare is a bug in a step list, not a user error. */
export function workOf(ctx: WorkContext): PreparedWork {
  if (!ctx.work) throw new Error(`step order: ${ctx.kind} used the workspace before the prepare step`);
  return ctx.work;
}

/**
 * The baseline as far as it got, for a job that is ending: a run still going is stopped, and
 * then nothing counts as pre-existing (as when no baseline was taken).
 */
export async function baselineAtEnd(ctx: WorkContext): Promise<Record<string, BaselineCheck>> {
  ctx.baselineRun?.abort();
  return (await ctx.baseline?.catch(() => undefined)) ?? {};
}

export function baselineOf(ctx: WorkContext): Promise<Record<string, BaselineCheck>> {
  if (!ctx.baseline) throw new Error(`step order: ${ctx.kind} used the baseline before the baseline step`);
  return ctx.baseline;
}
