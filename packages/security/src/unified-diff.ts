/** The lines a diff adds to one file, with their line numbers in the new version. */
export interface AddedLines {
  file: string;
  lines: string[];
  lineNumbers: number[];
}

export class UnifiedDiffError extends Error {}

const HUNK = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function unquote(p: string): string {
  if (!p.startsWith('"')) return p;
  // git quotes paths with C-style escapes; JSON's escapes cover the common ones (\" \\ \t \n).
  try {
    return JSON.parse(p.replace(/\\([0-7]{3})/g, (_, o: string) => `\\u00${Number.parseInt(o, 8).toString(16)}`));
  } catch {
    return p.slice(1, -1);
  }
}

function newPath(header: string): string | undefined {
  let p = header.slice(4);
  if (!p.startsWith('"')) p = p.split('\t')[0]!;
  p = unquote(p.trimEnd());
  if (p === '/dev/null') return undefined;
  return p.startsWith('b/') ? p.slice(2) : p;
}

/**
 * Extracts added lines per file from a unified diff (`git diff` output or plain `diff -u`).
 * Hunk line counts are followed exactly, so an added line that itself starts with `+++ `
 * or `diff ` is content, not a header. Combined (merge) diffs are rejected: their
 * `+`/`-` columns mean something else, and guessing would let a secret through.
 */
export function parseAddedLines(diff: string): AddedLines[] {
  const files: AddedLines[] = [];
  let current: AddedLines | undefined;
  let pendingPath: string | undefined = '(unknown)';
  let oldLeft = 0;
  let newLeft = 0;
  let lineNo = 0;
  const lines = diff.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (oldLeft > 0 || newLeft > 0) {
      const tag = line[0];
      if (tag === '+') {
        if (current) {
          current.lines.push(line.slice(1));
          current.lineNumbers.push(lineNo);
        }
        lineNo++;
        newLeft--;
      } else if (tag === '-') {
        oldLeft--;
      } else if (tag === ' ' || (line === '' && i < lines.length - 1)) {
        lineNo++;
        oldLeft--;
        newLeft--;
      } else if (tag === '\\') {
        // "\ No newline at end of file"
      } else {
        throw new UnifiedDiffError(`hunk ends early at diff line ${i + 1}`);
      }
      continue;
    }
    if (line.startsWith('@@@')) throw new UnifiedDiffError('combined diffs are not supported');
    if (line.startsWith('diff ')) {
      pendingPath = '(unknown)';
      current = undefined;
    } else if (line.startsWith('+++ ')) {
      pendingPath = newPath(line);
      current = undefined;
    } else if (line.startsWith('@@')) {
      const m = HUNK.exec(line);
      if (!m) throw new UnifiedDiffError(`malformed hunk header at diff line ${i + 1}`);
      oldLeft = m[1] === undefined ? 1 : Number(m[1]);
      newLeft = m[3] === undefined ? 1 : Number(m[3]);
      lineNo = Number(m[2]);
      if (pendingPath !== undefined && !current) {
        current = { file: pendingPath, lines: [], lineNumbers: [] };
        files.push(current);
      }
    }
  }
  if (oldLeft > 0 || newLeft > 0) throw new UnifiedDiffError('diff ends inside a hunk');
  return files.filter((f) => f.lines.length > 0);
}
