import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, ToolInputError } from './define-tool.ts';
import { FILE_SIZE_LIMITS, formatBytes } from './file-size-limits.ts';

const MAX_LINES = 2000;

export function numberLines(lines: string[], firstLine: number): string {
  const width = String(firstLine + lines.length - 1).length;
  return lines.map((l, i) => `${String(firstLine + i).padStart(width)}| ${l}`).join('\n');
}

export const readFileTool = defineTool({
  name: 'read_file',
  description: 'Read a text file with line numbers. Use startLine/endLine (1-based, inclusive) for large files.',
  readOnly: true,
  input: z.object({
    path: z.string(),
    startLine: z.number().int().positive().optional(),
    endLine: z.number().int().positive().optional(),
  }),
  async run({ path: rel, startLine, endLine }, ctx) {
    const file = await ctx.guard.resolveForRead(rel);
    const info = await stat(file);
    if (info.isDirectory()) throw new ToolInputError(`${rel} is a directory; use list_dir.`);
    if (info.size > FILE_SIZE_LIMITS.readBytes)
      throw new ToolInputError(
        `${rel} is ${info.size} bytes, over the ${formatBytes(FILE_SIZE_LIMITS.readBytes)} read_file reads. Use search to find the part you need.`,
      );
    const text = await readFile(file, 'utf8');
    if (text.includes('\0')) throw new ToolInputError(`${rel} is a binary file.`);
    const lines = text.split('\n');
    const from = startLine ?? 1;
    const to = Math.min(endLine ?? from + MAX_LINES - 1, lines.length, from + MAX_LINES - 1);
    if (from > lines.length) throw new ToolInputError(`${rel} has only ${lines.length} lines.`);
    const body = numberLines(lines.slice(from - 1, to), from);
    return to < lines.length ? `${body}\n(lines ${from}-${to} of ${lines.length})` : body;
  },
});
