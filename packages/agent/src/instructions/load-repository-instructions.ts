import { sanitizeUntrustedText } from '@pullwright/security';
import { estimateTokens } from '../repo-map.ts';
import { instructionCandidates } from './instruction-candidates.ts';
import { type InstructionFile, RepositoryInstructions, type SkippedInstruction } from './repository-instructions.ts';

/** The base commit as the loader reads it (the pipeline passes the mirror's git objects, never the worktree). */
interface BaseCommitFiles {
  /** Every file path of the commit. */
  list(): Promise<string[]>;
  /** The texts of these files, in order; undefined for one the commit lacks. */
  read(paths: readonly string[]): Promise<Array<string | undefined>>;
}

/** Characters of one instruction file read at most: a larger one is listed by path, never cut. */
const MAX_INSTRUCTION_FILE_CHARS = 200_000;

/**
 * The repository's instruction files from its base commit: the usual names (see
 * `instructionCandidates`) and the policy's `instructions:` patterns, each read once and
 * sanitized like issue text (HTML comments, zero-width and bidi characters, hidden attributes
 * removed: a model reads only what a person reviewing the file sees). A pattern matching
 * nothing, a binary file and one over the size limit are kept as `skipped`, with the reason.
 */
export async function loadRepositoryInstructions(
  base: BaseCommitFiles,
  policy: { patterns: readonly string[]; matcher: (pattern: string) => (path: string) => boolean },
  budgetTokens?: number,
): Promise<RepositoryInstructions> {
  const all = await base.list();
  const matchers = policy.patterns.map((pattern) => ({ pattern, matches: policy.matcher(pattern) }));
  const candidates = instructionCandidates(all, (file) => matchers.some((m) => m.matches(file)));
  const skipped: SkippedInstruction[] = matchers
    .filter((m) => !all.some((file) => m.matches(file)))
    .map((m) => ({ path: m.pattern, reason: '.pullwright.yml instructions: matches no file at the base commit' }));
  const texts = await base.read(candidates.map((c) => c.path));
  const files: InstructionFile[] = [];
  for (const [i, candidate] of candidates.entries()) {
    const raw = texts[i];
    if (raw === undefined) continue;
    if (raw.includes('\0')) skipped.push({ path: candidate.path, reason: 'not a text file' });
    else if (raw.length > MAX_INSTRUCTION_FILE_CHARS)
      skipped.push({ path: candidate.path, reason: `${raw.length} characters, over ${MAX_INSTRUCTION_FILE_CHARS}` });
    else {
      const text = sanitizeUntrustedText(raw);
      if (text) files.push({ ...candidate, text, tokens: estimateTokens(text) });
    }
  }
  return new RepositoryInstructions(files, skipped, budgetTokens);
}
