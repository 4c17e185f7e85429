import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { runGit, SECRET_FILE_PATTERNS } from '@pullwright/security';
import { RE2JS } from 're2js';
import { z } from 'zod';
import { defineTool, ToolInputError } from './define-tool.ts';
import { FILE_SIZE_LIMITS } from './file-size-limits.ts';

const MAX_MATCHES = 100;
const MAX_LINE_CHARS = 200;
/** Longer lines (minified code) are skipped: they bloat results and say little. */
const MAX_SCANNED_LINE_CHARS = 2000;
/**
 * Wall-clock budget of one search. Matching is linear in what is scanned, but a repository can
 * be large: past this the model is told to narrow the search instead of waiting.
 */
const SEARCH_BUDGET_MS = 10_000;
/** Characters matched between two yields to the event loop, so other jobs' work goes on meanwhile. */
const YIELD_EVERY_CHARS = 256 * 1024;

/** Files git would show: tracked plus untracked-but-not-ignored, so .gitignore is respected. */
export async function listRepoFiles(root: string): Promise<string[]> {
  const out = await runGit(root, ['ls-files', '--cached', '--others', '--exclude-standard', '-z']);
  return [...new Set(out.toString('utf8').split('\0').filter(Boolean))].sort();
}

/**
 * The model's pattern in RE2 (re2js, a port of RE2): matching time is linear in the input
 * whatever the pattern, where JavaScript's backtracking engine took over 120 s on `^(a+)+$`
 * against a 30-character line and froze the worker. RE2 refuses what it cannot match in linear
 * time (backreferences, lookaround): the model is told so.
 */
function compile(pattern: string, flags: number, what: string): RE2JS {
  try {
    return RE2JS.compile(pattern, flags);
  } catch (err) {
    throw new ToolInputError(
      `${what} is not supported: ${(err as Error).message}. search uses RE2 syntax: JavaScript's without backreferences or lookaround.`,
    );
  }
}

function globPattern(glob: string): string {
  return `^${glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.')}$`;
}

export const searchTool = defineTool({
  name: 'search',
  description:
    'Search the repository (files git does not ignore) with a regular expression (RE2 syntax: like JavaScript, without backreferences or lookaround). Returns path:line: text, at most 100 matches. Narrow with `path` (a directory or file prefix) or `glob` (e.g. "*.ts").',
  readOnly: true,
  input: z.object({
    pattern: z.string().min(1).max(500),
    path: z.string().optional().describe('Only files under this directory or with this prefix'),
    glob: z.string().max(100).optional().describe('Only files whose name matches, e.g. "*.test.ts"'),
    caseSensitive: z.boolean().default(true),
  }),
  async run({ pattern, path: under, glob, caseSensitive }, ctx) {
    const started = performance.now();
    const re = compile(pattern, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE, 'The pattern');
    const prefix = under ? ctx.guard.normalize(under) : '.';
    const nameRe = glob ? compile(globPattern(glob), 0, 'The glob') : undefined;
    const files = (await listRepoFiles(ctx.root)).filter(
      (f) =>
        (prefix === '.' || f === prefix || f.startsWith(`${prefix}/`)) &&
        (!nameRe || nameRe.test(path.posix.basename(f))) &&
        !SECRET_FILE_PATTERNS.some((p) => p.test(f)),
    );
    const out: string[] = [];
    let total = 0;
    let sinceYield = 0;
    const withinBudget = (scanned: number) => {
      if (performance.now() - started <= SEARCH_BUDGET_MS) return;
      throw new ToolInputError(
        `search stopped after ${SEARCH_BUDGET_MS / 1000} s, having scanned ${scanned} of ${files.length} files (${total} matches so far). Narrow it with path or glob, or a more specific pattern.`,
      );
    };
    for (const [index, file] of files.entries()) {
      withinBudget(index);
      // Through the guard like read_file: a symlink to a host file must not reach the model.
      const abs = await ctx.guard.resolveForRead(file).catch(() => undefined);
      if (!abs) continue;
      const info = await stat(abs).catch(() => undefined);
      if (!info?.isFile() || info.size > FILE_SIZE_LIMITS.readBytes) continue;
      const text = await readFile(abs, 'utf8');
      if (text.includes('\0')) continue;
      const lines = text.split('\n');
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        if (line.length > MAX_SCANNED_LINE_CHARS) continue;
        sinceYield += line.length;
        if (sinceYield > YIELD_EVERY_CHARS) {
          sinceYield = 0;
          await new Promise((resolve) => setImmediate(resolve));
          withinBudget(index);
        }
        if (!re.test(line)) continue;
        total++;
        if (out.length < MAX_MATCHES) out.push(`${file}:${i + 1}: ${line.trim().slice(0, MAX_LINE_CHARS)}`);
      }
    }
    if (total === 0) return `No matches for /${pattern}/ in ${files.length} files.`;
    return total > out.length
      ? `${out.join('\n')}\n… ${total - out.length} more matches; narrow the search.`
      : out.join('\n');
  },
});
