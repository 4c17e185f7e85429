/** Characters of one file a prompt carries at most: beyond it the file is named, not silently cut. */
export const MAX_FILE_IN_PROMPT = 40_000;

interface PromptFiles {
  /** The files as the prompt shows them, separated by blank lines. */
  text: string;
  /** Files the model was shown only in part or not at all: it cannot replace them whole. */
  partial: string[];
}

type Reader = (rel: string) => Promise<string | undefined>;

/**
 * The latest version of each changed file for a repair prompt (seed 003's "file
 * replacements"). A file over the limit is named as omitted, with its size and how to see
 * it, never cut without a word: a model that believes it saw a whole file rewrites it whole.
 */
export async function repairFiles(paths: string[], read: Reader, howToRead: string): Promise<PromptFiles> {
  const parts: string[] = [];
  const partial: string[] = [];
  for (const f of paths) {
    const content = await read(f);
    if (content === undefined) parts.push(`--- FILE REMOVED ${f} ---`);
    else if (content.length > MAX_FILE_IN_PROMPT) {
      parts.push(
        `--- FILE OMITTED ${f} (${content.length} characters, over the ${MAX_FILE_IN_PROMPT}-character limit of this prompt; ${howToRead}) ---`,
      );
      partial.push(f);
    } else parts.push(`--- FILE REPLACEMENT ${f} ---\n${content}`);
  }
  return { text: parts.join('\n\n'), partial };
}

/**
 * Current contents of the given files, for a model that cannot read them itself (text-edit
 * mode). A file over the limit is shown in part and marked so; `partial` lists it, and a
 * whole-file block for it is refused (the part not shown would be lost).
 */
export async function currentFiles(paths: string[], read: Reader): Promise<PromptFiles> {
  const parts: string[] = [];
  const partial: string[] = [];
  for (const p of [...new Set(paths)]) {
    const content = await read(p);
    if (content === undefined) continue;
    if (content.length > MAX_FILE_IN_PROMPT) {
      parts.push(
        `--- FILE ${p} (PARTIAL: the first ${MAX_FILE_IN_PROMPT} of ${content.length} characters; a whole-file block for it is refused) ---\n${content.slice(0, MAX_FILE_IN_PROMPT)}`,
      );
      partial.push(p);
    } else parts.push(`--- FILE ${p} ---\n${content}`);
  }
  return { text: parts.length ? `\n\nCurrent files:\n${parts.join('\n\n')}` : '', partial };
}
