/** One file of a unified diff (`git diff` output), with its changed lines. */
export interface DiffFile {
  path: string;
  /** The path before a rename or deletion. */
  oldPath: string;
  status: 'added' | 'deleted' | 'modified' | 'renamed';
  binary: boolean;
  added: string[];
  removed: string[];
}

function unquote(p: string): string {
  // git quotes paths with unusual bytes: "a/sp\303\251cial name"
  if (!p.startsWith('"')) return p;
  const bytes: number[] = [];
  const body = p.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c));
      continue;
    }
    const next = body[++i] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(Number.parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else bytes.push(({ n: 10, t: 9, '"': 34, '\\': 92 } as Record<string, number>)[next] ?? next.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

function stripSide(p: string): string {
  const u = unquote(p.trim());
  return u.replace(/^[ab]\//, '');
}

/**
 * Parses `git diff` output. Inside a hunk only a new `diff --git` line ends the file, so a
 * removed line reading `--- x` or an added `+++ y` is never taken for a header.
 */
export function parseUnifiedDiff(diff: string): DiffFile[] {
  const files: DiffFile[] = [];
  let current: DiffFile | undefined;
  let inHunk = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      const m = /^diff --git (".*?"|\S+) (".*"|\S+)$/.exec(line);
      const a = m ? stripSide(m[1]!) : '';
      const b = m ? stripSide(m[2]!) : '';
      current = { path: b, oldPath: a, status: 'modified', binary: false, added: [], removed: [] };
      files.push(current);
      inHunk = false;
      continue;
    }
    if (!current) continue;
    if (inHunk) {
      if (line.startsWith('+')) current.added.push(line.slice(1));
      else if (line.startsWith('-')) current.removed.push(line.slice(1));
      else if (line.startsWith('@@')) continue;
      continue;
    }
    if (line.startsWith('@@')) inHunk = true;
    else if (line.startsWith('new file mode')) current.status = 'added';
    else if (line.startsWith('deleted file mode')) current.status = 'deleted';
    else if (line.startsWith('rename from ')) {
      current.status = 'renamed';
      current.oldPath = unquote(line.slice('rename from '.length));
    } else if (line.startsWith('rename to ')) current.path = unquote(line.slice('rename to '.length));
    else if (line.startsWith('--- ') && line !== '--- /dev/null') current.oldPath = stripSide(line.slice(4));
    else if (line.startsWith('+++ ') && line !== '+++ /dev/null') current.path = stripSide(line.slice(4));
    else if (line.startsWith('Binary files ') || line === 'GIT binary patch') current.binary = true;
  }
  return files;
}
