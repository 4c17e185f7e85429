import { loadRepositoryInstructions, type RepositoryInstructions } from '@pullwright/agent';
import { globMatcher, type RepoPolicyFile } from '@pullwright/policy';
import type { WorkspaceManager } from '@pullwright/workspace';

/**
 * The repository's instruction files as its base commit has them, read from the mirror's git
 * objects (never the worktree: the model's edits, and a revision's branch, change nothing the
 * prompts get) — with the skill files its `.pullwright.yml` names under `instructions:`.
 */
export function readRepositoryInstructions(
  workspace: Pick<WorkspaceManager, 'listFilesAt' | 'readManyAt'>,
  repo: string,
  baseSha: string,
  repoFile: Pick<RepoPolicyFile, 'instructions'> | undefined,
): Promise<RepositoryInstructions> {
  return loadRepositoryInstructions(
    { list: () => workspace.listFilesAt(repo, baseSha), read: (paths) => workspace.readManyAt(repo, baseSha, paths) },
    { patterns: repoFile?.instructions ?? [], matcher: globMatcher },
  );
}
