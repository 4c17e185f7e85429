import type { FixReport } from '@pullwright/core';
import type { AgentLoopResult } from '../agent-loop.ts';
import type { Parsed } from '../extract-model-json.ts';
import type { AgentTool } from '../tools/define-tool.ts';

/** What the coder's conversation came to. */
export interface CodeAnswer {
  loop: AgentLoopResult;
  /** The answer apart from its edits: the change's summary (a revision's replies are in it). */
  summary: string;
  /** Why the edits in the answer were not applied (nothing was written), if they were not. */
  problem?: string;
}

/** What one fixer conversation came to: its strict JSON report, parsed, once it completed. */
export interface FixAnswer {
  loop: AgentLoopResult;
  report?: Parsed<FixReport>;
  problem?: string;
}

/**
 * How the coder and the fixer change files: by tool calls (`tools`), or by whole-file blocks
 * in their answer (`text`, `LLM_EDIT_MODE=text`, for models without tool use). Every phase
 * of the solve is the same for both; only this differs.
 */
export interface EditMode {
  /** Whether the look-only roles (planner, reviewer) can read the repository with tools. */
  readonly canRead: boolean;
  /** The planner's and the reviewer's tools. */
  readonly lookTools: readonly AgentTool[];
  /** How a repair prompt says to see a changed file too large to be shown. */
  readonly howToSeeOmitted: string;
  /** The coder on `task`; `files` are shown to a coder that cannot read them itself. */
  code(task: string, files: readonly string[]): Promise<CodeAnswer>;
  /** The fixer of repair round `round`; `partial`: files its prompt shows only in part or not at all. */
  fix(task: string, round: number, partial: readonly string[]): Promise<FixAnswer>;
}
