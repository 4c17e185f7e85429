import { opendir } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from './define-tool.ts';

const MAX_ENTRIES = 500;
/** Entries read at most: a check can leave a directory of millions, and sorting them all would stall the worker. */
const MAX_READ_ENTRIES = 2_000;

export const listDirTool = defineTool({
  name: 'list_dir',
  description: 'List the entries of a directory of the repository (directories end with /).',
  readOnly: true,
  input: z.object({ path: z.string().default('.').describe('Directory relative to the repository root') }),
  async run({ path: rel }, ctx) {
    const entries: string[] = [];
    let unread = false;
    for await (const e of await opendir(await ctx.guard.resolveForRead(rel), { bufferSize: 1024 })) {
      if (entries.length === MAX_READ_ENTRIES) {
        unread = true;
        break;
      }
      if (e.name !== '.git') entries.push(e.isDirectory() ? `${e.name}/` : e.name);
    }
    entries.sort();
    const shown = entries.slice(0, MAX_ENTRIES);
    const more = unread ? `more than ${MAX_READ_ENTRIES - shown.length}` : String(entries.length - shown.length);
    return `${shown.join('\n') || '(empty directory)'}${more !== '0' ? `\n… and ${more} more entries` : ''}`;
  },
});
