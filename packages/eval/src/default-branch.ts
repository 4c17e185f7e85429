import type { GitAuth } from '@pullwright/security';
import { gitClient } from '@pullwright/workspace';

/** The branch the forge's HEAD names (what a repository's tasks are mined from and attempts start on); `main` when it names none. */
export async function defaultBranch(mirror: string, auth: GitAuth | undefined): Promise<string> {
  const out = await gitClient(mirror, auth).raw(['ls-remote', '--symref', 'origin', 'HEAD']);
  return /^ref: refs\/heads\/(\S+)\s+HEAD$/m.exec(out)?.[1] ?? 'main';
}
