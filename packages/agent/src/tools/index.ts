import type { AgentTool } from './define-tool.ts';
import { deleteFileTool } from './delete-file.ts';
import { editFileTool } from './edit-file.ts';
import { listDirTool } from './list-dir.ts';
import { readFileTool } from './read-file.ts';
import { runCheckTool } from './run-check.ts';
import { searchTool } from './search.ts';
import { writeFileTool } from './write-file.ts';

export { type CheckRun, type CheckRunner, type ToolContext, ToolInputError, truncateOutput } from './define-tool.ts';
export { listRepoFiles } from './search.ts';

export const ALL_TOOLS: readonly AgentTool[] = [
  listDirTool,
  readFileTool,
  searchTool,
  editFileTool,
  writeFileTool,
  deleteFileTool,
  runCheckTool,
];

/** What the planner and the reviewer may use: they look, they do not touch. */
export const READ_ONLY_TOOLS: readonly AgentTool[] = ALL_TOOLS.filter((t) => t.readOnly && t.name !== 'run_check');
