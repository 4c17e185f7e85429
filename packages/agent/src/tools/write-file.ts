import { lstat, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, ToolInputError } from './define-tool.ts';
import { FILE_SIZE_LIMITS, formatBytes } from './file-size-limits.ts';

/**
 * Create and overwrite are different intents (seed 000: `create` fails if the file exists).
 * A model that "creates" a file which is already there has not read it: writing anyway
 * would silently drop its content, so the call is refused and says what to do instead.
 */
export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    'Write a whole file. mode "create" (the default) makes a new file and fails if it already exists; mode "overwrite" replaces the whole content of an existing file. Prefer edit_file for changes to existing files.',
  readOnly: false,
  input: z.object({
    path: z.string(),
    // Characters here; the byte limit is checked below (a character is up to 3 bytes in UTF-8).
    content: z.string().max(FILE_SIZE_LIMITS.writeBytes),
    mode: z.enum(['create', 'overwrite']).default('create'),
  }),
  async run({ path: rel, content, mode }, ctx) {
    const bytes = Buffer.byteLength(content);
    if (bytes > FILE_SIZE_LIMITS.writeBytes)
      throw new ToolInputError(
        `content is ${bytes} bytes, over the ${formatBytes(FILE_SIZE_LIMITS.writeBytes)} one write may be (nothing was written). Split the file, or generate large data in a check.`,
      );
    const file = await ctx.guard.resolveForWrite(rel);
    const exists = await lstat(file).then(
      () => true,
      () => false,
    );
    const alreadyThere = new ToolInputError(
      `${rel} already exists, so it was not created (nothing was written). Read it first; then change it with edit_file, or replace it entirely with write_file and mode "overwrite".`,
    );
    if (mode === 'create' && exists) throw alreadyThere;
    if (mode === 'overwrite' && !exists)
      throw new ToolInputError(
        `${rel} does not exist, so there is nothing to overwrite (nothing was written). Use write_file with mode "create" to make a new file.`,
      );
    await ctx.onWrite?.(rel, content);
    await mkdir(path.dirname(file), { recursive: true });
    // `wx` on create: a file that appeared since the check is not clobbered either.
    await writeFile(file, content, { flag: mode === 'create' ? 'wx' : 'w' }).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'EEXIST' ? alreadyThere : err;
    });
    const lint = await ctx.lintFile?.(rel);
    const verb = mode === 'create' ? 'Created' : 'Overwrote';
    return `${verb} ${rel} (${content.split('\n').length} lines).${lint ? `\nThe linter reports new problems in ${rel}:\n${lint}` : ''}`;
  },
});
