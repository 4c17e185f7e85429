import { PullwrightError } from './errors.ts';

/** One line of a hunk, numbered on the side(s) it belongs to. */
export interface DiffLine {
  /** `hunk` is the `@@ … @@` header itself; `note` is git's `\ No newline at end of file`. */
  kind: 'hunk' | 'context' | 'add' | 'del' | 'note';
  text: string;
  /** Line number in the old file (context, del), else null. */
  old: number | null;
  /** Line number in the new file (context, add), else null. */
  new: number | null;
}

/** One file of a unified diff (`git diff` output or plain `diff -u`). */
export interface DiffFile {
  /** The name after the change; for a deleted file, the name it had. Never quoted, no `a/`/`b/`. */
  path: string;
  /** The name before a rename or copy, else null. */
  oldPath: string | null;
  status: 'added' | 'deleted' | 'modified' | 'renamed' | 'copied';
  binary: boolean;
  /** File modes from `old mode`/`deleted file mode` and `new mode`/`new file mode`; null when unchanged. */
  oldMode: string | null;
  newMode: string | null;
  additions: number;
  deletions: number;
  lines: DiffLine[];
}

/** A diff whose structure cannot be followed: callers that gate on it (the secret scan) fail closed. */
export class UnifiedDiffError extends PullwrightError<{ line: number }> {
  constructor(reason: string, line: number) {
    super('validation_failed', `unified diff: ${reason} at diff line ${line}`, { line });
  }
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/**
 * git writes a name with unusual bytes C-quoted, non-ASCII as octal UTF-8 bytes:
 * `"a/sp\303\251cial"` is `a/spécial`. Returns the decoded text and where the quote closed.
 */
function readQuoted(s: string, start: number): { text: string; end: number } | undefined {
  const bytes: number[] = [];
  for (let i = start + 1; i < s.length; i++) {
    const c = s[i]!;
    if (c === '"') return { text: Buffer.from(bytes).toString('utf8'), end: i + 1 };
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = s[++i] ?? '';
    const octal = /^[0-7]{3}/.exec(s.slice(i, i + 3));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += 2;
    } else bytes.push(C_ESCAPES[next] ?? next.charCodeAt(0));
  }
  return undefined;
}

/** A name as git prints it after `rename from`, `+++ ` and the like: quoted or raw (a tab ends raw `diff -u` names). */
function gitName(raw: string): string {
  if (raw.startsWith('"')) {
    const quoted = readQuoted(raw, 0);
    if (quoted) return quoted.text;
  }
  return raw.split('\t')[0]!.trimEnd();
}

function dropPrefix(name: string, prefix: 'a/' | 'b/'): string {
  return name.startsWith(prefix) ? name.slice(2) : name;
}

/**
 * The two names of `diff --git <a> <b>`. Raw names may hold spaces, so `a/x y b/x y` is split
 * where both halves name the same file; a rename's names come from the `rename` lines after it.
 */
function headerNames(rest: string): [string, string] {
  if (rest.startsWith('"')) {
    const a = readQuoted(rest, 0);
    if (a) return [a.text, gitName(rest.slice(a.end + 1))];
  }
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest[half] === ' ' && rest.slice(2, half) === rest.slice(half + 3)) {
    return [rest.slice(0, half), rest.slice(half + 1)];
  }
  const quotedB = rest.lastIndexOf(' "');
  if (quotedB > 0 && rest.endsWith('"')) return [rest.slice(0, quotedB), gitName(rest.slice(quotedB + 1))];
  const split = rest.indexOf(' b/');
  return split > 0 ? [rest.slice(0, split), rest.slice(split + 1)] : [rest, rest];
}

function newFile(path: string): DiffFile {
  return {
    path,
    oldPath: null,
    status: 'modified',
    binary: false,
    oldMode: null,
    newMode: null,
    additions: 0,
    deletions: 0,
    lines: [],
  };
}

/**
 * The one parser of unified diffs: the secret scan, the risk assessment and the dashboard all
 * read diffs through it, so they agree on every name (quoted, renamed, binary, mode-only).
 * Hunk line counts are followed exactly, so a line inside a hunk that reads `+++ x` or
 * `diff --git` is content, never a header. Combined (merge) diffs and hunks that end early
 * throw UnifiedDiffError: their `+`/`-` columns cannot be trusted, and the secret scan must
 * not guess.
 */
export function parseUnifiedDiff(diff: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | undefined;
  // The `a/` side of the current file's header: a deleted file keeps this name.
  let oldName = '';
  // A `diff --git` header opens a file whose `---`/`+++` lines may follow; after its first hunk
  // (or in plain `diff -u` output) a `---`/`+++` pair starts the next file.
  let headerOpen = false;
  let inBinaryPatch = false;
  let oldLeft = 0;
  let newLeft = 0;
  let oldNo = 0;
  let newNo = 0;
  const lines = diff.split('\n');
  const start = (path: string, old: string) => {
    file = newFile(path);
    oldName = old;
    files.push(file);
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (oldLeft > 0 || newLeft > 0) {
      const f = file!;
      const tag = line[0];
      if (tag === '+' && newLeft > 0) {
        f.additions++;
        f.lines.push({ kind: 'add', text: line.slice(1), old: null, new: newNo++ });
        newLeft--;
      } else if (tag === '-' && oldLeft > 0) {
        f.deletions++;
        f.lines.push({ kind: 'del', text: line.slice(1), old: oldNo++, new: null });
        oldLeft--;
      } else if ((tag === ' ' || (line === '' && i < lines.length - 1)) && oldLeft > 0 && newLeft > 0) {
        // An empty line mid-hunk is context whose leading space an editor or mailer stripped.
        f.lines.push({ kind: 'context', text: line.slice(1), old: oldNo++, new: newNo++ });
        oldLeft--;
        newLeft--;
      } else if (tag === '\\') {
        f.lines.push({ kind: 'note', text: line.slice(2), old: null, new: null });
      } else {
        throw new UnifiedDiffError('hunk ends early', i + 1);
      }
      continue;
    }
    if (line.startsWith('\\') && file) {
      // `\ No newline at end of file` after the hunk's last line.
      file.lines.push({ kind: 'note', text: line.slice(2), old: null, new: null });
      continue;
    }
    if (line.startsWith('@@@') || line.startsWith('diff --cc ') || line.startsWith('diff --combined ')) {
      throw new UnifiedDiffError('combined diffs are not supported', i + 1);
    }
    if (line.startsWith('diff --git ')) {
      const [a, b] = headerNames(line.slice('diff --git '.length));
      start(dropPrefix(b, 'b/'), dropPrefix(a, 'a/'));
      headerOpen = true;
      inBinaryPatch = false;
      continue;
    }
    if (line.startsWith('diff ')) {
      // `diff -ru x y`: the `---`/`+++` pair below names the file.
      file = undefined;
      headerOpen = false;
      continue;
    }
    if (inBinaryPatch) continue;
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      const minus = gitName(line.slice(4));
      const plus = gitName(lines[i + 1]!.slice(4));
      i++;
      if (!headerOpen || !file) start('', '');
      const f = file!;
      if (minus !== '/dev/null') oldName = dropPrefix(minus, 'a/');
      else f.status = 'added';
      if (plus !== '/dev/null') f.path = dropPrefix(plus, 'b/');
      else {
        f.status = 'deleted';
        f.path = oldName;
      }
      headerOpen = true;
      continue;
    }
    if (line.startsWith('@@')) {
      const m = HUNK.exec(line);
      if (!m) throw new UnifiedDiffError('malformed hunk header', i + 1);
      if (!file) start('', '');
      oldNo = Number(m[1]);
      newNo = Number(m[3]);
      oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      newLeft = m[4] === undefined ? 1 : Number(m[4]);
      file!.lines.push({ kind: 'hunk', text: line, old: null, new: null });
      headerOpen = false;
      continue;
    }
    if (file && !headerOpen && line.startsWith('+')) {
      // An added line past its hunk's count: a reader that skipped it would let it through unseen.
      throw new UnifiedDiffError('added line outside a hunk', i + 1);
    }
    if (!file || !headerOpen) continue;
    const f = file;
    if (line.startsWith('new file mode ')) {
      f.status = 'added';
      f.newMode = line.slice('new file mode '.length);
    } else if (line.startsWith('deleted file mode ')) {
      f.status = 'deleted';
      f.oldMode = line.slice('deleted file mode '.length);
    } else if (line.startsWith('old mode ')) f.oldMode = line.slice('old mode '.length);
    else if (line.startsWith('new mode ')) f.newMode = line.slice('new mode '.length);
    else if (line.startsWith('rename from ') || line.startsWith('copy from ')) {
      f.status = line.startsWith('rename') ? 'renamed' : 'copied';
      f.oldPath = gitName(line.slice(line.indexOf(' from ') + ' from '.length));
    } else if (line.startsWith('rename to ') || line.startsWith('copy to ')) {
      f.path = gitName(line.slice(line.indexOf(' to ') + ' to '.length));
    } else if (line.startsWith('Binary files ')) f.binary = true;
    else if (line === 'GIT binary patch') {
      f.binary = true;
      // Base85 data follows until the next `diff --git`; none of it is a header.
      inBinaryPatch = true;
    }
  }
  if (oldLeft > 0 || newLeft > 0) throw new UnifiedDiffError('diff ends inside a hunk', lines.length);
  return files;
}
