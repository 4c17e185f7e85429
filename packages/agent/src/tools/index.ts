import type { AgentTool } from './define-tool.ts';
import { editFileTool } from './edit-file.ts';
import { listDirTool } from './list-dir.ts';
import { readFileTool } from './read-file.ts';
import { runCheckTool } from './run-check.ts';
import { writeFileTool } from './write-file.ts';

export * from './define-tool.ts';
export { closestLines } from './edit-file.ts';

export const ALL_TOOLS: readonly AgentTool[] = [listDirTool, readFileTool, editFileTool, writeFileTool, runCheckTool];
