import path from 'node:path';

/** Who wrote the convention the file follows: it says how far the file reaches. */
export type InstructionKind = 'agents' | 'claude' | 'copilot' | 'cursor' | 'policy';

export interface InstructionCandidate {
  path: string;
  kind: InstructionKind;
}

/**
 * At most this many instruction files are read per operation: a repository with an AGENTS.md
 * in every package still fits, a generated tree of thousands does not flood the prompt.
 */
const MAX_INSTRUCTION_FILES = 100;

/** `.cursor/rules/**` holds Cursor's rule files (`.mdc`, markdown with a front matter). */
const CURSOR_RULE = /^\.cursor\/rules\/.+\.(mdc|md)$/;

function kindOf(file: string): InstructionKind | undefined {
  const base = path.posix.basename(file);
  if (base === 'AGENTS.md') return 'agents';
  if (base === 'CLAUDE.md') return 'claude';
  if (file === '.github/copilot-instructions.md') return 'copilot';
  if (CURSOR_RULE.test(file)) return 'cursor';
  return undefined;
}

/**
 * The instruction files among a commit's paths, as the peers read them: `AGENTS.md` (Codex,
 * Open SWE) and `CLAUDE.md` (Claude Code) at the root and in any directory, each reaching the
 * files under its directory; `.github/copilot-instructions.md` (Copilot) and
 * `.cursor/rules/*` (Cursor) for the whole repository; and the files the repository policy
 * names in `instructions:` (`isPolicyFile`). In path order, at most MAX_INSTRUCTION_FILES.
 */
export function instructionCandidates(
  paths: readonly string[],
  isPolicyFile: (path: string) => boolean,
): InstructionCandidate[] {
  const found: InstructionCandidate[] = [];
  for (const file of [...paths].sort()) {
    const kind = kindOf(file) ?? (isPolicyFile(file) ? 'policy' : undefined);
    if (kind) found.push({ path: file, kind });
  }
  return found.slice(0, MAX_INSTRUCTION_FILES);
}

/** The directory an AGENTS.md or CLAUDE.md reaches (`''`: the whole repository); undefined for repository-wide kinds. */
export function scopeOf(file: InstructionCandidate): string | undefined {
  if (file.kind !== 'agents' && file.kind !== 'claude') return undefined;
  const dir = path.posix.dirname(file.path);
  return dir === '.' ? '' : dir;
}
