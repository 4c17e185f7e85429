import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, ToolInputError } from './define-tool.ts';
import { numberLines } from './read-file.ts';

/** Character-bigram similarity (Dice): cheap and good enough to point at a near miss. */
function similarity(a: string, b: string): number {
  const grams = (s: string) => {
    const out = new Map<string, number>();
    for (let i = 0; i < s.length - 1; i++) out.set(s.slice(i, i + 2), (out.get(s.slice(i, i + 2)) ?? 0) + 1);
    return out;
  };
  const ga = grams(a.trim());
  const gb = grams(b.trim());
  let common = 0;
  for (const [g, n] of ga) common += Math.min(n, gb.get(g) ?? 0);
  const total = Math.max(a.trim().length - 1, 0) + Math.max(b.trim().length - 1, 0);
  return total === 0 ? (a.trim() === b.trim() ? 1 : 0) : (2 * common) / total;
}

/** The window of the file that looks most like `wanted`, with line numbers, for the error message. */
export function closestLines(content: string, wanted: string): string {
  const lines = content.split('\n');
  const wantedLines = wanted.split('\n');
  const span = Math.min(wantedLines.length, 20);
  let best = 0;
  let bestScore = -1;
  for (let i = 0; i + span <= lines.length || i === 0; i++) {
    let score = 0;
    for (let j = 0; j < span && i + j < lines.length; j++)
      score += similarity(lines[i + j] ?? '', wantedLines[j] ?? '');
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
    if (i + span >= lines.length) break;
  }
  const from = Math.max(0, best - 2);
  const to = Math.min(lines.length, best + span + 2);
  return numberLines(lines.slice(from, to), from + 1);
}

function occurrences(haystack: string, needle: string): number[] {
  const at: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) at.push(i);
  return at;
}

export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Replace one exact, unique occurrence of oldText with newText in a file. oldText must match the file exactly (whitespace included) and appear once; include surrounding lines to make it unique.',
  readOnly: false,
  input: z.object({ path: z.string(), oldText: z.string().min(1), newText: z.string() }),
  async run({ path: rel, oldText, newText }, ctx) {
    const file = await ctx.guard.resolveForWrite(rel);
    const content = await readFile(file, 'utf8');
    const found = occurrences(content, oldText);
    if (found.length === 0) {
      throw new ToolInputError(
        `oldText was not found in ${rel}. Did you mean these lines?\n${closestLines(content, oldText)}\nCopy the text exactly as it appears (without the line-number prefix).`,
      );
    }
    if (found.length > 1) {
      const lineOf = (offset: number) => content.slice(0, offset).split('\n').length;
      throw new ToolInputError(
        `oldText appears ${found.length} times in ${rel} (lines ${found.map(lineOf).join(', ')}). Include more surrounding lines so it matches once.`,
      );
    }
    const at = found[0]!;
    const updated = content.slice(0, at) + newText + content.slice(at + oldText.length);
    await ctx.onWrite?.(rel, updated);
    await writeFile(file, updated);
    const line = content.slice(0, at).split('\n').length;
    return `Edited ${rel} at line ${line}.`;
  },
});
