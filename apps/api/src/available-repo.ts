import { ValidationError } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';

/**
 * The repository a request names, or DEFAULT_REPO; a 400 naming `repo` when there is none or
 * the forge does not have it. Every request that targets a repository asks this first.
 */
export async function availableRepo(
  deps: Pick<Runtime, 'forge' | 'config'>,
  named: string | undefined,
): Promise<string> {
  const repo = named ?? deps.config.defaultRepo;
  if (!repo)
    throw new ValidationError('repo is required', [
      { field: 'repo', reason: 'required (no DEFAULT_REPO is configured)' },
    ]);
  if (!(await deps.forge.repositoryExists(repo))) {
    throw new ValidationError(`repository ${repo} is not available`, [
      { field: 'repo', reason: `not found on the ${deps.forge.name} forge` },
    ]);
  }
  return repo;
}
