import { isPullwrightError, type CheckRun as RecordedCheckRun } from '@pullwright/core';
import type { PathGuard } from '@pullwright/security';
import { z } from 'zod';
import type { ToolSpec } from '../model-provider.ts';
import { toolErrorMessage } from './tool-error-message.ts';

/** Result of one repo check (test, lint…) as the agent sees it. */
export interface CheckRun extends RecordedCheckRun {
  /** Served from an earlier run on the same tree (see CheckResultCache), not run again. */
  reused?: boolean;
}

export interface CheckRunner {
  /** Names the repo has configured or we detected (`test`, `lint`…). */
  names(): string[];
  run(name: string, signal?: AbortSignal): Promise<CheckRun>;
}

export interface ToolContext {
  root: string;
  guard: PathGuard;
  checks: CheckRunner;
  /** Called after each successful write, with the repo-relative path (locks, secret scan, bookkeeping). */
  onWrite?: (relPath: string, content: string | null) => Promise<void>;
  /**
   * Before each file operation (every tool but `run_check`): waits while the worktree is still
   * being checked out (the first model turn goes out before it exists), and throws a
   * `ToolInputError` the model reads when the operation's file-operation rate is used up (see
   * pipeline `WorkspaceGate`).
   */
  beforeFileOperation?: (tool: string) => void | Promise<void>;
  /** Lints one file after an edit; returns the problems the edit added, or nothing. */
  lintFile?: (relPath: string) => Promise<string | undefined>;
  signal?: AbortSignal;
}

export interface AgentTool {
  name: string;
  readOnly: boolean;
  spec: ToolSpec;
  execute(input: unknown, ctx: ToolContext): Promise<ToolOutcome>;
}

export interface ToolOutcome {
  content: string;
  isError: boolean;
}

/** Tool output the model sees at most. Long output costs tokens and buries the signal. */
export const MAX_TOOL_OUTPUT_CHARS = 16_000;

/** Keeps the head and the tail (where errors and summaries are) and says what was cut. */
export function truncateOutput(text: string, max = MAX_TOOL_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.4);
  const tail = max - head;
  return `${text.slice(0, head)}\n… [${text.length - head - tail} characters omitted] …\n${text.slice(-tail)}`;
}

/** An error the model should read and act on (wrong path, no match…), not a crash. */
export class ToolInputError extends Error {}

export function defineTool<S extends z.ZodType>(def: {
  name: string;
  description: string;
  input: S;
  readOnly: boolean;
  /** False for tools that touch no file (`run_check`): they do not count against the file-operation rate. */
  fileOperation?: boolean;
  run(input: z.infer<S>, ctx: ToolContext): Promise<string>;
}): AgentTool {
  const { $schema: _ignored, ...inputSchema } = z.toJSONSchema(def.input) as Record<string, unknown>;
  return {
    name: def.name,
    readOnly: def.readOnly,
    spec: { name: def.name, description: def.description, inputSchema },
    async execute(raw, ctx) {
      const parsed = def.input.safeParse(raw);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ');
        return { content: `Invalid input for ${def.name}: ${problems}`, isError: true };
      }
      try {
        if (def.fileOperation !== false) await ctx.beforeFileOperation?.(def.name);
        return { content: truncateOutput(await def.run(parsed.data, ctx)), isError: false };
      } catch (err) {
        if (err instanceof ToolInputError || isPullwrightError(err)) {
          return { content: truncateOutput((err as Error).message), isError: true };
        }
        // A cancelled operation stops the loop; anything else the filesystem says goes to the model.
        if (!(err instanceof Error) || err.name === 'AbortError' || !('code' in err)) throw err;
        const rel = (parsed.data as { path?: unknown }).path;
        const content = toolErrorMessage(
          def.name,
          typeof rel === 'string' ? rel : undefined,
          err as NodeJS.ErrnoException,
          ctx.root,
        );
        return { content: truncateOutput(content), isError: true };
      }
    },
  };
}
