import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { PathGuard } from '@pullwright/security';
import { listRepoFiles } from './tools/search.ts';

/** Top-level declarations per language: enough to know where things are, not what they do. */
const SYMBOL_PATTERNS: Record<string, RegExp[]> = {
  js: [
    /^export\s+(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:function\*?|class|const|let|var|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm,
    /^(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)/gm,
    /^class\s+([A-Za-z_$][\w$]*)/gm,
  ],
  py: [/^(?:async\s+)?def\s+(\w+)/gm, /^class\s+(\w+)/gm],
  go: [/^func\s+(?:\([^)]*\)\s*)?(\w+)/gm, /^type\s+(\w+)/gm],
  rs: [/^pub(?:\([^)]*\))?\s+(?:async\s+)?(?:fn|struct|enum|trait|type|mod)\s+(\w+)/gm],
  java: [/^(?:public\s+)?(?:abstract\s+|final\s+)?(?:class|interface|enum|record)\s+(\w+)/gm],
  rb: [/^\s*(?:class|module)\s+([A-Z]\w*)/gm, /^\s*def\s+([\w?!]+)/gm],
};
const LANGUAGE_BY_EXT: Record<string, keyof typeof SYMBOL_PATTERNS> = {
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'js',
  '.ts': 'js',
  '.tsx': 'js',
  '.mts': 'js',
  '.cts': 'js',
  '.py': 'py',
  '.go': 'go',
  '.rs': 'rs',
  '.java': 'java',
  '.kt': 'java',
  '.cs': 'java',
  '.rb': 'rb',
};
const MAX_SCANNED_BYTES = 256 * 1024;
const MAX_SYMBOLS_PER_FILE = 12;

export function extractSymbols(file: string, text: string): string[] {
  const lang = LANGUAGE_BY_EXT[path.extname(file)];
  if (!lang) return [];
  const found = new Set<string>();
  for (const pattern of SYMBOL_PATTERNS[lang]!) for (const m of text.matchAll(pattern)) if (m[1]) found.add(m[1]);
  return [...found];
}

interface Entry {
  file: string;
  symbols: string[];
}

function render(entries: Entry[], collapsed: Set<string>): string {
  const lines: string[] = [];
  let lastDir: string | undefined;
  const counts = new Map<string, number>();
  for (const e of entries) {
    const dir = [...collapsed].find((d) => e.file.startsWith(`${d}/`));
    if (dir) counts.set(dir, (counts.get(dir) ?? 0) + 1);
  }
  for (const e of entries) {
    const hidden = [...collapsed].find((d) => e.file.startsWith(`${d}/`));
    if (hidden) {
      if (lastDir !== hidden) lines.push(`${hidden}/ (${counts.get(hidden)} files)`);
      lastDir = hidden;
      continue;
    }
    const dir = path.posix.dirname(e.file);
    if (dir !== lastDir && dir !== '.') lines.push(`${dir}/`);
    lastDir = dir;
    const name = dir === '.' ? e.file : `  ${path.posix.basename(e.file)}`;
    const shown = e.symbols.slice(0, MAX_SYMBOLS_PER_FILE);
    const more = e.symbols.length - shown.length;
    lines.push(shown.length ? `${name}: ${shown.join(', ')}${more > 0 ? `, +${more}` : ''}` : name);
  }
  return lines.join('\n');
}

/** Rough token count: about four characters a token for code and paths. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/**
 * The tree a repository map describes: its file paths, and the texts of the source files it
 * scans for symbols. A worktree (`worktreeFiles`), or a commit read from git objects before
 * any worktree exists (the first model turn of a new operation: see pipeline `BaseCommitTree`).
 */
export interface RepoFiles {
  files(): Promise<string[]>;
  /** The texts of those of `files` that are regular files of at most `maxBytes`, by path. */
  texts(files: readonly string[], maxBytes: number): Promise<Map<string, string>>;
}

/** A worktree as `RepoFiles`: the files git would show, read through the guard (a symlink out of it is listed, not read). */
export function worktreeFiles(guard: PathGuard): RepoFiles {
  return {
    files: () => listRepoFiles(guard.root),
    async texts(files, maxBytes) {
      const texts = new Map<string, string>();
      for (const file of files) {
        const abs = await guard.resolveForRead(file).catch(() => undefined);
        const info = abs ? await stat(abs).catch(() => undefined) : undefined;
        if (info?.isFile() && info.size <= maxBytes) texts.set(file, await readFile(abs!, 'utf8'));
      }
      return texts;
    },
  };
}

/**
 * A commit's files (read from git objects, before the worktree exists) as the guard lets the
 * model see them: a file whose name the guard refuses for reading (a secret file, `.git`) is
 * listed, never read — what `worktreeFiles` gives for the same commit.
 */
export function guardedFiles(guard: PathGuard, tree: RepoFiles): RepoFiles {
  const readable = (file: string): boolean => {
    try {
      return !guard.isSecretFile(guard.normalize(file));
    } catch {
      return false;
    }
  };
  return { files: () => tree.files(), texts: (files, maxBytes) => tree.texts(files.filter(readable), maxBytes) };
}

/**
 * A compact map of the repository — files with their top-level symbols — that fits in
 * `budgetTokens`. When it does not fit, symbols go first (from the files with the most),
 * then the deepest directories collapse into one line each. The model reads files on
 * request instead of receiving the whole codebase.
 */
export async function buildRepoMap(tree: RepoFiles, budgetTokens = 2000): Promise<string> {
  const files = await tree.files();
  const texts = await tree.texts(
    files.filter((file) => LANGUAGE_BY_EXT[path.extname(file)]),
    MAX_SCANNED_BYTES,
  );
  const entries: Entry[] = files.map((file) => {
    const text = texts.get(file);
    return { file, symbols: text === undefined ? [] : extractSymbols(file, text) };
  });
  // A directory's own files first, then its subdirectories: one header per directory.
  entries.sort((a, b) => {
    const da = path.posix.dirname(a.file);
    const db = path.posix.dirname(b.file);
    return da === db ? a.file.localeCompare(b.file) : da.localeCompare(db);
  });
  const collapsed = new Set<string>();
  let map = render(entries, collapsed);
  // Drop symbols from the heaviest files first: they cost the most and say the least per token.
  const bySymbols = [...entries].filter((e) => e.symbols.length).sort((a, b) => b.symbols.length - a.symbols.length);
  while (estimateTokens(map) > budgetTokens && bySymbols.length) {
    bySymbols.shift()!.symbols = [];
    map = render(entries, collapsed);
  }
  // Then collapse directories, deepest (and largest) first.
  const dirs = [...new Set(entries.map((e) => path.posix.dirname(e.file)).filter((d) => d !== '.'))];
  const allDirs = [...new Set(dirs.flatMap((d) => d.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'))))];
  allDirs.sort((a, b) => b.split('/').length - a.split('/').length || a.localeCompare(b));
  while (estimateTokens(map) > budgetTokens && allDirs.length) {
    const dir = allDirs.shift()!;
    for (const d of [...collapsed]) if (d.startsWith(`${dir}/`)) collapsed.delete(d);
    collapsed.add(dir);
    map = render(entries, collapsed);
  }
  return map;
}
