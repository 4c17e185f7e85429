import path from 'node:path';
import { type DiffFile, parseUnifiedDiff, type RiskAssessment } from '@pullwright/core';
import { type ApiChange, apiChange } from './exported-symbols.ts';
import { type FileKind, fileKind } from './file-kinds.ts';

/** Above this many changed lines (or files) a change is high risk whatever it touches: too big to review well. */
const LARGE_CHANGE_LINES = 500;
const LARGE_CHANGE_FILES = 30;
/** Tests and docs stay low risk up to this size. */
const LOW_RISK_LINES = 100;

/** A dependency line in package.json: `"name": "^1.2.3"` (or a tag, range, git/file/workspace spec). */
const NPM_DEP_LINE =
  /^\s*"(?!version"|name"|main"|types"|module")([^"]+)"\s*:\s*"((?:[~^<>=v*]|\d|workspace:|npm:|file:|link:|git|github:|https?:|latest|next)[^"]*)"/;

export interface ChangedFile {
  path: string;
  oldPath: string;
  status: DiffFile['status'];
  kind: FileKind;
  additions: number;
  deletions: number;
}

export interface DiffAnalysis {
  files: ChangedFile[];
  additions: number;
  deletions: number;
  kinds: Partial<Record<FileKind, number>>;
  /** Dependency files and, for package.json, the dependency names whose lines changed. */
  dependencies: { file: string; names: string[] }[];
  api: ApiChange[];
  secretFindings: number;
}

/** The text of one kind of line (`add` or `del`) in a file's hunks. */
function linesOf(f: DiffFile, kind: 'add' | 'del'): string[] {
  return f.lines.filter((l) => l.kind === kind).map((l) => l.text);
}

/** Dependencies whose spec differs between removed and added lines (a moved trailing comma is no change). */
function packageJsonDeps(added: string[], removed: string[]): string[] {
  const specs = (lines: string[]) => {
    const out = new Map<string, string>();
    for (const line of lines) {
      const m = NPM_DEP_LINE.exec(line);
      if (m) out.set(m[1]!, m[2]!);
    }
    return out;
  };
  const before = specs(removed);
  const after = specs(added);
  const names: string[] = [];
  for (const [name, spec] of after) {
    const old = before.get(name);
    if (old === undefined) names.push(`${name} (new)`);
    else if (old !== spec) names.push(`${name} ${old} → ${spec}`);
  }
  for (const name of before.keys()) if (!after.has(name)) names.push(`${name} (removed)`);
  return names;
}

/** Everything risk and auto-approval look at, read from the final diff. */
export function analyzeDiff(diff: string, options: { secretFindings?: number } = {}): DiffAnalysis {
  const files: ChangedFile[] = [];
  const dependencies: DiffAnalysis['dependencies'] = [];
  const api: ApiChange[] = [];
  for (const f of parseUnifiedDiff(diff)) {
    const added = linesOf(f, 'add');
    const removed = linesOf(f, 'del');
    let kind = fileKind(f.path);
    if (f.oldPath !== null) {
      // A rename out of a sensitive place is as sensitive as an edit inside it.
      const before = fileKind(f.oldPath);
      if (['ci', 'security', 'migrations'].includes(before)) kind = before;
    }
    if (kind === 'dependencies') {
      if (path.posix.basename(f.path) === 'package.json') {
        const names = packageJsonDeps(added, removed);
        if (names.length > 0) dependencies.push({ file: f.path, names });
        else kind = 'source';
      } else dependencies.push({ file: f.path, names: [] });
    }
    if (kind === 'source') {
      const change = apiChange(f.path, removed, added);
      if (change.added.length + change.removed.length + change.changed.length > 0) api.push(change);
    }
    files.push({
      path: f.path,
      oldPath: f.oldPath ?? f.path,
      status: f.status,
      kind,
      additions: f.additions,
      deletions: f.deletions,
    });
  }
  const kinds: Partial<Record<FileKind, number>> = {};
  for (const f of files) kinds[f.kind] = (kinds[f.kind] ?? 0) + 1;
  return {
    files,
    additions: files.reduce((n, f) => n + f.additions, 0),
    deletions: files.reduce((n, f) => n + f.deletions, 0),
    kinds,
    dependencies,
    api,
    secretFindings: options.secretFindings ?? 0,
  };
}

const list = (items: string[], max = 3) =>
  items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;

/**
 * Low, medium or high, with every reason a reviewer should read: high for secrets, CI and
 * workflow files, security-sensitive paths, migrations and schema, removed exports, or a
 * change too large to review; medium for source, dependency and other API changes; low only
 * for small test and docs changes.
 */
export function assessRisk(diff: string | DiffAnalysis, options: { secretFindings?: number } = {}): RiskAssessment {
  const a = typeof diff === 'string' ? analyzeDiff(diff, options) : diff;
  const high: string[] = [];
  const medium: string[] = [];
  const pathsOf = (kind: FileKind) => a.files.filter((f) => f.kind === kind).map((f) => f.path);
  const lines = a.additions + a.deletions;

  if (a.secretFindings > 0) high.push(`secret scan: ${a.secretFindings} finding(s) in the diff`);
  if (pathsOf('ci').length) high.push(`CI/workflow files changed: ${list(pathsOf('ci'))}`);
  if (pathsOf('security').length) high.push(`security-sensitive files changed: ${list(pathsOf('security'))}`);
  if (pathsOf('migrations').length) high.push(`schema or migration changes: ${list(pathsOf('migrations'))}`);
  for (const c of a.api) {
    if (c.removed.length) high.push(`public API removed in ${c.file}: ${list(c.removed)}`);
    if (c.changed.length) medium.push(`public API changed in ${c.file}: ${list(c.changed)}`);
    if (c.added.length) medium.push(`public API added in ${c.file}: ${list(c.added)}`);
  }
  if (lines > LARGE_CHANGE_LINES || a.files.length > LARGE_CHANGE_FILES)
    high.push(`large change: ${a.files.length} files, ${lines} lines`);
  for (const d of a.dependencies)
    medium.push(`dependencies changed in ${d.file}${d.names.length ? `: ${list(d.names)}` : ''}`);
  if (pathsOf('source').length) medium.push(`source files changed: ${list(pathsOf('source'))}`);
  if (high.length === 0 && medium.length === 0 && lines > LOW_RISK_LINES)
    medium.push(`${lines} lines of tests and docs changed`);

  const level = high.length ? 'high' : medium.length ? 'medium' : 'low';
  const reasons = [...high, ...medium];
  if (level === 'low')
    reasons.push(
      a.files.length === 0 ? 'no files changed' : `only ${Object.keys(a.kinds).sort().join(' and ')} changed`,
    );
  return {
    level,
    reasons,
    stats: {
      files: a.files.length,
      additions: a.additions,
      deletions: a.deletions,
      kinds: a.kinds as Record<string, number>,
    },
  };
}
