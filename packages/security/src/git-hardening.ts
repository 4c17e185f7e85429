/**
 * Settings on every git command the worker runs. The repositories are untrusted: a hook,
 * an fsmonitor command or a filter from the repo's config would run code in the worker,
 * outside the sandbox, with its credentials at hand.
 */
export const HARDENED_GIT_CONFIG: readonly string[] = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'protocol.file.allow=always',
  'user.name=Pullwright',
  'user.email=pullwright@users.noreply.local',
  'commit.gpgsign=false',
  'advice.detachedHead=false',
];

/** Credentials for one operation's git traffic (an installation token), never written to disk. */
export interface GitAuth {
  username: string;
  token: string;
}
