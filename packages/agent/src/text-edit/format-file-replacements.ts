import path from 'node:path';
import type { FileBlock } from './parse-file-blocks.ts';

/**
 * The "file replacements" section of a repair prompt: for every file the model changed
 * across all attempts so far, only its latest version (or its removal), in the order the
 * files were first touched.
 *
 *     --- FILE REPLACEMENT src/a.ts ---
 *     …content…
 *     --- FILE REMOVED src/old.ts ---
 */
export function formatFileReplacements(blocksInOrder: FileBlock[]): string {
  const latest = new Map<string, FileBlock>();
  for (const block of blocksInOrder) {
    const key = path.posix.normalize(block.path.replaceAll('\\', '/'));
    // Re-inserting would move the file to the end; the first position is kept.
    latest.set(key, block);
  }
  return [...latest.entries()]
    .map(([file, block]) =>
      block.kind === 'delete'
        ? `--- FILE REMOVED ${file} ---\n`
        : `--- FILE REPLACEMENT ${file} ---\n${block.content}${block.content === '' || block.content.endsWith('\n') ? '' : '\n'}`,
    )
    .join('');
}
