import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { SECRET_FILE_PATTERNS } from '@pullwright/security';
import { z } from 'zod';
import { defineTool, ToolInputError } from './define-tool.ts';

const run = promisify(execFile);
const MAX_MATCHES = 100;
const MAX_LINE_CHARS = 200;
const MAX_FILE_BYTES = 1024 * 1024;

/** Files git would show: tracked plus untracked-but-not-ignored, so .gitignore is respected. */
export async function listRepoFiles(root: string): Promise<string[]> {
  const { stdout } = await run(
    'git',
    ['-c', 'core.hooksPath=/dev/null', 'ls-files', '--cached', '--others', '--exclude-standard', '-z'],
    {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return [...new Set(stdout.split('\0').filter(Boolean))].sort();
}

export const searchTool = defineTool({
  name: 'search',
  description:
    'Search the repository (files git does not ignore) with a regular expression (JavaScript syntax). Returns path:line: text, at most 100 matches. Narrow with `path` (a directory or file prefix) or `glob` (e.g. "*.ts").',
  readOnly: true,
  input: z.object({
    pattern: z.string().min(1).max(500),
    path: z.string().optional().describe('Only files under this directory or with this prefix'),
    glob: z.string().max(100).optional().describe('Only files whose name matches, e.g. "*.test.ts"'),
    caseSensitive: z.boolean().default(true),
  }),
  async run({ pattern, path: under, glob, caseSensitive }, ctx) {
    let re: RegExp;
    try {
      re = new RegExp(pattern, caseSensitive ? '' : 'i');
    } catch (err) {
      throw new ToolInputError(`Invalid regular expression: ${(err as Error).message}`);
    }
    const prefix = under ? ctx.guard.normalize(under) : '.';
    const nameRe = glob
      ? new RegExp(
          `^${glob
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '.*')
            .replace(/\?/g, '.')}$`,
        )
      : undefined;
    const files = (await listRepoFiles(ctx.root)).filter(
      (f) =>
        (prefix === '.' || f === prefix || f.startsWith(`${prefix}/`)) &&
        (!nameRe || nameRe.test(path.posix.basename(f))) &&
        !SECRET_FILE_PATTERNS.some((p) => p.test(f)),
    );
    const out: string[] = [];
    let total = 0;
    for (const file of files) {
      // Through the guard like read_file: a symlink to a host file must not reach the model.
      const abs = await ctx.guard.resolveForRead(file).catch(() => undefined);
      if (!abs) continue;
      const info = await stat(abs).catch(() => undefined);
      if (!info?.isFile() || info.size > MAX_FILE_BYTES) continue;
      const text = await readFile(abs, 'utf8');
      if (text.includes('\0')) continue;
      const lines = text.split('\n');
      for (let i = 0; i < lines.length; i++) {
        // Very long lines (minified code) are skipped: they bloat results and invite regex blow-ups.
        if (lines[i]!.length > 2000 || !re.test(lines[i]!)) continue;
        total++;
        if (out.length < MAX_MATCHES) out.push(`${file}:${i + 1}: ${lines[i]!.trim().slice(0, MAX_LINE_CHARS)}`);
      }
    }
    if (total === 0) return `No matches for /${pattern}/ in ${files.length} files.`;
    return total > out.length
      ? `${out.join('\n')}\n… ${total - out.length} more matches; narrow the search.`
      : out.join('\n');
  },
});
