import { readFile, stat, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, ToolInputError } from './define-tool.ts';
import { FILE_SIZE_LIMITS, formatBytes } from './file-size-limits.ts';
import { numberLines } from './read-file.ts';

/** Characters of a line compared: enough to recognise it, and the cost stays linear in the file. */
const COMPARED_CHARS = 200;
/** Windows scored line by line: those whose anchor line is most like the wanted one. */
const CANDIDATE_WINDOWS = 50;
/** Occurrences of oldText counted at most: enough to say "appears N times" with line numbers. */
const MAX_OCCURRENCES = 20;

type Bigrams = Map<string, number>;

function bigrams(line: string): Bigrams {
  const s = line.trim().slice(0, COMPARED_CHARS);
  const out: Bigrams = new Map();
  for (let i = 0; i < s.length - 1; i++) out.set(s.slice(i, i + 2), (out.get(s.slice(i, i + 2)) ?? 0) + 1);
  return out;
}

/** Character-bigram similarity (Dice): cheap and good enough to point at a near miss. */
function similarity(a: Bigrams, b: Bigrams, aText: string, bText: string): number {
  let common = 0;
  let total = 0;
  for (const [g, n] of a) {
    common += Math.min(n, b.get(g) ?? 0);
    total += n;
  }
  for (const n of b.values()) total += n;
  return total === 0 ? (aText.trim() === bText.trim() ? 1 : 0) : (2 * common) / total;
}

/**
 * The window of the file that looks most like `wanted`, with line numbers, for the error
 * message. Its longest line anchors the search: every line of the file is compared with it once,
 * and only the best CANDIDATE_WINDOWS windows are compared line by line, so a large file or a
 * long `oldText` costs time linear in their size.
 */
function closestLines(content: string, wanted: string): string {
  const lines = content.split('\n');
  const wantedLines = wanted.split('\n').slice(0, 20);
  const span = wantedLines.length;
  const wantedGrams = wantedLines.map(bigrams);
  const anchor = wantedLines.reduce((best, l, j) => (l.trim().length > wantedLines[best]!.trim().length ? j : best), 0);
  const cache = new Map<number, Bigrams>();
  const gramsAt = (i: number): Bigrams => {
    const known = cache.get(i);
    if (known) return known;
    const g = bigrams(lines[i] ?? '');
    cache.set(i, g);
    return g;
  };
  const lastStart = Math.max(0, lines.length - span);
  const anchorScores = lines.map((l, i) => ({
    start: Math.min(Math.max(0, i - anchor), lastStart),
    score: similarity(gramsAt(i), wantedGrams[anchor]!, l, wantedLines[anchor]!),
  }));
  cache.clear();
  const starts = [...new Set(anchorScores.sort((a, b) => b.score - a.score).map((c) => c.start))]
    .slice(0, CANDIDATE_WINDOWS)
    .sort((a, b) => a - b);
  let best = 0;
  let bestScore = -1;
  for (const i of starts.length > 0 ? starts : [0]) {
    let score = 0;
    for (let j = 0; j < span && i + j < lines.length; j++)
      score += similarity(gramsAt(i + j), wantedGrams[j]!, lines[i + j]!, wantedLines[j]!);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  const from = Math.max(0, best - 2);
  const to = Math.min(lines.length, best + span + 2);
  return numberLines(lines.slice(from, to), from + 1);
}

function occurrences(haystack: string, needle: string): number[] {
  const at: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1 && at.length < MAX_OCCURRENCES; i = haystack.indexOf(needle, i + 1))
    at.push(i);
  return at;
}

const EDIT_MODES = [
  'replace',
  'insert_before',
  'insert_after',
  'replace_lines',
  'insert_at_line',
  'append',
  'prepend',
] as const;

/** Finds the one place `oldText` stands, or explains (with line numbers) why it cannot. */
function locateUnique(content: string, oldText: string, rel: string): number {
  const found = occurrences(content, oldText);
  if (found.length === 0) {
    throw new ToolInputError(
      `oldText was not found in ${rel}. Did you mean these lines?\n${closestLines(content, oldText)}\nCopy the text exactly as it appears (without the line-number prefix), or use mode "replace_lines" with line numbers.`,
    );
  }
  if (found.length > 1) {
    const lineOf = (offset: number) => content.slice(0, offset).split('\n').length;
    throw new ToolInputError(
      `oldText appears ${found.length >= MAX_OCCURRENCES ? `${MAX_OCCURRENCES} or more` : found.length} times in ${rel} (lines ${found.map(lineOf).join(', ')}). Include more surrounding lines so it matches once.`,
    );
  }
  return found[0]!;
}

function lineStart(lines: string[], line: number): number {
  return lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
}

/** Applies one edit; returns the new content and the 1-based line it touched. */
function applyEdit(
  content: string,
  rel: string,
  edit: {
    mode: (typeof EDIT_MODES)[number];
    oldText?: string | undefined;
    newText: string;
    line?: number | undefined;
    endLine?: number | undefined;
  },
): { updated: string; line: number } {
  const { mode, newText } = edit;
  const lineAt = (offset: number) => content.slice(0, offset).split('\n').length;
  const needsText = (): string => {
    if (!edit.oldText) throw new ToolInputError(`mode "${mode}" needs oldText (the exact text to find).`);
    return edit.oldText;
  };
  const lines = content.split('\n');
  const needsLine = (max: number): number => {
    if (edit.line === undefined) throw new ToolInputError(`mode "${mode}" needs line (1-based).`);
    if (edit.line < 1 || edit.line > max) throw new ToolInputError(`line ${edit.line} is outside ${rel} (1-${max}).`);
    return edit.line;
  };
  switch (mode) {
    case 'replace': {
      const oldText = needsText();
      const at = locateUnique(content, oldText, rel);
      return { updated: content.slice(0, at) + newText + content.slice(at + oldText.length), line: lineAt(at) };
    }
    case 'insert_before': {
      const at = locateUnique(content, needsText(), rel);
      return { updated: content.slice(0, at) + newText + content.slice(at), line: lineAt(at) };
    }
    case 'insert_after': {
      const oldText = needsText();
      const at = locateUnique(content, oldText, rel) + oldText.length;
      return { updated: content.slice(0, at) + newText + content.slice(at), line: lineAt(at) };
    }
    case 'replace_lines': {
      const from = needsLine(lines.length);
      const to = edit.endLine ?? from;
      if (to < from || to > lines.length)
        throw new ToolInputError(`endLine ${to} must be between ${from} and ${lines.length}.`);
      const replacement = newText.endsWith('\n') ? newText.slice(0, -1).split('\n') : newText.split('\n');
      return { updated: [...lines.slice(0, from - 1), ...replacement, ...lines.slice(to)].join('\n'), line: from };
    }
    case 'insert_at_line': {
      const at = needsLine(lines.length + 1);
      const offset = at > lines.length ? content.length : lineStart(lines, at);
      const text = newText.endsWith('\n') || at > lines.length ? newText : `${newText}\n`;
      return { updated: content.slice(0, offset) + text + content.slice(offset), line: at };
    }
    case 'append':
      return { updated: content + newText, line: lines.length };
    case 'prepend':
      return { updated: newText + content, line: 1 };
  }
}

export const editFileTool = defineTool({
  name: 'edit_file',
  description: [
    'Change part of a file. Modes:',
    '"replace" (default): replace the one exact occurrence of oldText with newText (whitespace must match; include surrounding lines to make it unique);',
    '"insert_before" / "insert_after": insert newText before/after the one occurrence of oldText;',
    '"replace_lines": replace lines line..endLine (1-based, inclusive) with newText;',
    '"insert_at_line": insert newText before line `line`;',
    '"append" / "prepend": add newText at the end/start of the file.',
    'Read the file first to get exact text or line numbers.',
  ].join(' '),
  readOnly: false,
  input: z.object({
    path: z.string(),
    mode: z.enum(EDIT_MODES).default('replace'),
    oldText: z.string().min(1).max(FILE_SIZE_LIMITS.writeBytes).optional(),
    newText: z.string().max(FILE_SIZE_LIMITS.writeBytes),
    line: z.number().int().positive().optional(),
    endLine: z.number().int().positive().optional(),
  }),
  async run({ path: rel, ...edit }, ctx) {
    const file = await ctx.guard.resolveForWrite(rel);
    const limit = formatBytes(FILE_SIZE_LIMITS.writeBytes);
    const { size } = await stat(file);
    if (size > FILE_SIZE_LIMITS.writeBytes)
      throw new ToolInputError(
        `${rel} is ${size} bytes; edit_file changes files of up to ${limit} (nothing was written). Generated or data files are not edited by hand.`,
      );
    const content = await readFile(file, 'utf8');
    const { updated, line } = applyEdit(content, rel, edit);
    const bytes = Buffer.byteLength(updated);
    if (bytes > FILE_SIZE_LIMITS.writeBytes)
      throw new ToolInputError(
        `the edit would make ${rel} ${bytes} bytes, over the ${limit} a file tool writes (nothing was written).`,
      );
    await ctx.onWrite?.(rel, updated);
    await writeFile(file, updated);
    const lint = await ctx.lintFile?.(rel);
    return `Edited ${rel} at line ${line}.${lint ? `\nThe linter reports new problems in ${rel}:\n${lint}` : ''}`;
  },
});
