import { type GitAuth, protocolOf } from '@pullwright/security';
import { gitClient } from '@pullwright/workspace';

/** The branch the forge's HEAD names (what a repository's tasks are mined from and attempts start on); `main` when it names none. */
export async function defaultBranch(mirror: string, cloneUrl: string, auth: GitAuth | undefined): Promise<string> {
  const out = await gitClient(mirror, { auth, protocol: protocolOf(cloneUrl) }).raw([
    'ls-remote',
    '--symref',
    'origin',
    'HEAD',
  ]);
  return /^ref: refs\/heads\/(\S+)\s+HEAD$/m.exec(out)?.[1] ?? 'main';
}
