import { rm, stat } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, ToolInputError } from './define-tool.ts';

export const deleteFileTool = defineTool({
  name: 'delete_file',
  description:
    'Delete a file of the repository. Protected files (lock files, CI workflows, build scripts) are refused, and so are files a project cannot lose (package.json, index.html, vite.config.js, src/main.jsx: edit those instead).',
  readOnly: false,
  input: z.object({ path: z.string() }),
  async run({ path: rel }, ctx) {
    const file = await ctx.guard.resolveForDelete(rel);
    const info = await stat(file);
    if (info.isDirectory()) throw new ToolInputError(`${rel} is a directory; delete its files one by one.`);
    await ctx.onWrite?.(rel, null);
    await rm(file);
    return `Deleted ${rel}.`;
  },
});
