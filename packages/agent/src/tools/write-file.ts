import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool.ts';

export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Create a file or replace its whole content. Prefer edit_file for changes to existing files.',
  readOnly: false,
  input: z.object({ path: z.string(), content: z.string().max(1_000_000) }),
  async run({ path: rel, content }, ctx) {
    const file = await ctx.guard.resolveForWrite(rel);
    await ctx.onWrite?.(rel, content);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
    const lint = await ctx.lintFile?.(rel);
    return `Wrote ${rel} (${content.split('\n').length} lines).${lint ? `\nThe linter reports new problems in ${rel}:\n${lint}` : ''}`;
  },
});
