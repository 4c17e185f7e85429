import { type DiffFile, type DiffLine, parseUnifiedDiff } from '@pullwright/core';

/** A diff file as the dashboard page renders it: lines capped and redacted. */
interface DashboardDiffFile extends DiffFile {
  /** Lines past the page's limit were left out; the counts still cover the whole file. */
  truncated: boolean;
}

/** The one Redactor's method this needs (the runtime's Redactor). */
interface Redactor {
  redact(text: string): string;
}

/** A browser renders a few thousand table rows per file comfortably; past that it stalls. */
const MAX_LINES_PER_FILE = 3000;

/**
 * Redacts a file's lines as one text, so a secret spanning lines (a PEM block) is seen whole.
 * When a mask swallows line breaks the lines no longer line up, and the file's content is
 * withheld rather than shown half-masked.
 */
function redactLines(lines: DiffLine[], redactor: Redactor): DiffLine[] {
  const text = lines.map((l) => l.text).join('\n');
  const redacted = redactor.redact(text);
  if (redacted === text) return lines;
  const parts = redacted.split('\n');
  if (parts.length !== lines.length) {
    return [{ kind: 'note', text: 'Content withheld: it matched a secret rule across lines.', old: null, new: null }];
  }
  return lines.map((l, i) => ({ ...l, text: parts[i]! }));
}

/**
 * The pull request's diff for the dashboard: parsed by the one diff parser (so the page shows
 * the names the secret scan and the risk read), with numbered, classified, redacted lines, so
 * the page only renders them and never interprets diff syntax from untrusted text itself.
 */
export function dashboardDiff(
  diff: string,
  redactor: Redactor,
  maxLinesPerFile = MAX_LINES_PER_FILE,
): DashboardDiffFile[] {
  return parseUnifiedDiff(diff).map((f) => ({
    ...f,
    path: redactor.redact(f.path),
    oldPath: f.oldPath === null ? null : redactor.redact(f.oldPath),
    lines: redactLines(f.lines.slice(0, maxLinesPerFile), redactor),
    truncated: f.lines.length > maxLinesPerFile,
  }));
}
