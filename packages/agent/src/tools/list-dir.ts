import { readdir } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from './define-tool.ts';

const MAX_ENTRIES = 500;

export const listDirTool = defineTool({
  name: 'list_dir',
  description: 'List the entries of a directory of the repository (directories end with /).',
  readOnly: true,
  input: z.object({ path: z.string().default('.').describe('Directory relative to the repository root') }),
  async run({ path: rel }, ctx) {
    const dir = await ctx.guard.resolveForRead(rel);
    const entries = (await readdir(dir, { withFileTypes: true }))
      .filter((e) => e.name !== '.git')
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
      .sort();
    const shown = entries.slice(0, MAX_ENTRIES);
    const more = entries.length - shown.length;
    return `${shown.join('\n') || '(empty directory)'}${more > 0 ? `\n… and ${more} more entries` : ''}`;
  },
});
