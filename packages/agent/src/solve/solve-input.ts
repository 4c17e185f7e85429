import type { FixReport, Plan } from '@pullwright/core';
import type { AgentLoopOptions } from '../agent-loop.ts';
import type { BudgetTracker } from '../budget-tracker.ts';
import type { RepositoryInstructions } from '../instructions/repository-instructions.ts';
import type { ModelProvider } from '../model-provider.ts';
import type { AgentTaskType } from '../role-prompts.ts';
import type { ConversationCheckpoint } from '../solve-journal.ts';
import type { AgentTool, ToolContext } from '../tools/define-tool.ts';
import type { TranscriptWriter } from '../transcript-writer.ts';

/** How a check did on the base commit, before any change: only new failures count against us. */
export interface BaselineCheck {
  passed: boolean;
  failingTests: string[];
  /** `failureFingerprint` of a failing run: what "the same failure" means when no test names are known. */
  fingerprint?: string;
}

/** The phases a solve reports as it enters them (`repair` is the fix phase). */
export type SolvePhase = 'plan' | 'code' | 'verify' | 'repair' | 'review';

export interface SolveInput {
  type: AgentTaskType;
  /** The request with its context (error text, logs, acceptance criteria, review comments). */
  task: string;
  repoMap: string;
  provider: ModelProvider;
  context: ToolContext;
  /**
   * How the checks do on the base commit. Awaited only when the change's checks are judged,
   * so the model starts while the baseline still runs beside it.
   */
  baseline: Promise<Record<string, BaselineCheck>>;
  budget: BudgetTracker;
  /** Repair rounds after the first attempt (seed 003: one attempt plus three repairs). */
  maxRepairs?: number;
  /** `text`: coder and fixer answer with whole-file blocks instead of tool calls (models without tool use). */
  editMode?: 'tools' | 'text';
  /** Skip the planner (a revision already has its task list: the review comments). */
  skipPlan?: boolean;
  /** Skip the model reviewer (a revision: the people who asked for it review the result on the PR). */
  skipReview?: boolean;
  /**
   * Checks that passed where this change starts (a revision: on the head it revises). Red, they
   * block even when the base is red too: a test the PR fixed may be red on the base.
   */
  mustStayGreen?: readonly string[];
  /** The change so far, from where this solve started. */
  diff: () => Promise<string>;
  /** Files this solve changed (none: the model made no change). */
  changedFiles: () => Promise<string[]>;
  readFile: (rel: string) => Promise<string | undefined>;
  transcript?: TranscriptWriter;
  shouldStop?: AgentLoopOptions['shouldStop'];
  readInbox?: AgentLoopOptions['readInbox'];
  onStep?: AgentLoopOptions['onStep'];
  onUsage?: AgentLoopOptions['onUsage'];
  onModelCall?: AgentLoopOptions['onModelCall'];
  /**
   * Seed 004, per repository: after each plan step its declared checks (`tests`) run, and a
   * red step goes to the fixer before the next step starts. Off: the coder does the whole
   * plan in one conversation and the checks run at the end.
   */
  perStepVerification?: boolean;
  /** The fixer's report after each repair round (its strict JSON, or why it was not valid). */
  onFixReport?: (entry: FixReportEntry) => Promise<void>;
  /** A plan step starting, verified green, or left red (per-step verification). */
  onPlanStep?: (event: PlanStepEvent) => Promise<void>;
  /**
   * Called with the validated plan before any edit (the pipeline locks the files it names).
   * A plan it returns replaces the planner's: a person confirming the plan may add to it.
   * `resumed`: the plan was settled (and confirmed) by an earlier attempt of this solve; it is
   * the plan as that attempt returned it, and what this call returns is ignored.
   */
  onPlan?: (plan: Plan, info: { resumed: boolean }) => Promise<Plan | undefined>;
  /**
   * Where the solve records its conversations turn by turn (and its check results between
   * them); a solve given the checkpoint of an interrupted attempt continues from its last
   * completed turn. Unset: nothing is recorded, a retry starts over.
   */
  checkpoint?: ConversationCheckpoint;
  onPhase?: (phase: SolvePhase, data: Record<string, unknown>) => Promise<void>;
  // --- issue 31: what the model knows (instructions, MCP tools) ---
  /** The repository's instruction files (read at prepare from the base commit): each role's task gets the ones reaching its files. */
  instructions?: RepositoryInstructions;
  /**
   * Files the requester named (a revision: the files its comments and the PR touch): what the
   * instructions are chosen for, and what a coder that cannot read (text mode) is shown.
   */
  targetFiles?: readonly string[];
  /** Tools offered beside the built-in ones (the team's MCP servers), per role; never in text-edit mode. */
  extraTools?: (role: string) => readonly AgentTool[];
}

/** One repair round's fixer report: the model's JSON when it validated, else the problem with it. */
export interface FixReportEntry {
  round: number;
  /** The plan step being repaired (per-step verification), if any. */
  taskId?: string;
  valid: boolean;
  report?: FixReport;
  problem?: string;
}

export interface PlanStepEvent {
  planId: string;
  taskId: string;
  title: string;
  state: 'started' | 'verified' | 'failed' | 'done';
  checks?: { name: string; passed: boolean }[];
}
