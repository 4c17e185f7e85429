interface DiffLine {
  kind: 'hunk' | 'context' | 'add' | 'del' | 'note';
  text: string;
  /** Line number in the old file (context, del), else null. */
  old: number | null;
  /** Line number in the new file (context, add), else null. */
  new: number | null;
}

interface DiffFile {
  path: string;
  /** The name before a rename, else null. */
  oldPath: string | null;
  status: 'added' | 'deleted' | 'modified' | 'renamed';
  binary: boolean;
  additions: number;
  deletions: number;
  lines: DiffLine[];
  /** Lines past the page's limit were left out; the counts still cover the whole file. */
  truncated: boolean;
}

/** A browser renders a few thousand table rows per file comfortably; past that it stalls. */
const MAX_LINES_PER_FILE = 3000;

/** `"a/sp ace"` (git quotes unusual names) or `a/name` → `name`. */
function unprefix(raw: string): string {
  let name = raw.trim();
  if (name.startsWith('"') && name.endsWith('"')) name = name.slice(1, -1).replace(/\\(.)/g, '$1');
  return name.replace(/^[ab]\//, '');
}

/**
 * `a/x b/x`: unquoted names may hold spaces, so split where both halves name the same file;
 * a rename (different halves) gets its names from the `rename to` / `+++` lines after it.
 */
function headerPath(rest: string): string {
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest[half] === ' ' && rest.slice(2, half) === rest.slice(half + 3)) {
    return rest.slice(half + 3);
  }
  const match = /^("[^"]+"|\S+) ("[^"]+"|\S+)$/.exec(rest);
  return match ? unprefix(match[2]!) : rest;
}

/**
 * Splits `git diff` output into files with numbered, classified lines, so the page only
 * has to render them (and never has to interpret diff syntax from untrusted text itself).
 */
export function parseUnifiedDiff(diff: string, maxLinesPerFile = MAX_LINES_PER_FILE): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | undefined;
  let oldNo = 0;
  let newNo = 0;
  let inHunk = false;
  const push = (line: DiffLine) => {
    if (!file) return;
    if (file.lines.length < maxLinesPerFile) file.lines.push(line);
    else file.truncated = true;
  };
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      const path = headerPath(line.slice('diff --git '.length));
      file = {
        path,
        oldPath: null,
        status: 'modified',
        binary: false,
        additions: 0,
        deletions: 0,
        lines: [],
        truncated: false,
      };
      files.push(file);
      inHunk = false;
      continue;
    }
    if (!file) continue;
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      inHunk = true;
      push({ kind: 'hunk', text: line, old: null, new: null });
      continue;
    }
    if (!inHunk) {
      if (line.startsWith('new file mode')) file.status = 'added';
      else if (line.startsWith('deleted file mode')) file.status = 'deleted';
      else if (line.startsWith('rename from ')) {
        file.oldPath = line.slice('rename from '.length);
        file.status = 'renamed';
      } else if (line.startsWith('rename to ')) file.path = line.slice('rename to '.length);
      else if (line.startsWith('+++ ') && !line.startsWith('+++ /dev/null')) file.path = unprefix(line.slice(4));
      else if (line.startsWith('Binary files ') || line === 'GIT binary patch') file.binary = true;
      continue;
    }
    if (line.startsWith('+')) {
      file.additions++;
      push({ kind: 'add', text: line.slice(1), old: null, new: newNo++ });
    } else if (line.startsWith('-')) {
      file.deletions++;
      push({ kind: 'del', text: line.slice(1), old: oldNo++, new: null });
    } else if (line.startsWith(' ')) {
      push({ kind: 'context', text: line.slice(1), old: oldNo++, new: newNo++ });
    } else if (line.startsWith('\\')) {
      push({ kind: 'note', text: line.slice(2), old: null, new: null });
    }
  }
  return files;
}
