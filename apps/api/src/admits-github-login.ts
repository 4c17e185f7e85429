import type { Identity } from '@pullwright/policy';

/** github.com in any spelling people put in GITHUB_URL. */
const PUBLIC_GITHUB = new Set(['github.com', 'www.github.com']);

/**
 * Who may sign in with GitHub: a login IDENTITIES names (any role); on a GitHub Enterprise
 * Server (or a GHE.com tenant) any of its accounts too, since those are the company's own
 * people — without a role they can look, not act. On github.com anyone has an account, so an
 * unknown login is refused at the door.
 */
export function admitsGitHubLogin(githubUrl: string, identity: Pick<Identity, 'role'>): boolean {
  if (identity.role !== null) return true;
  return !PUBLIC_GITHUB.has(new URL(githubUrl).hostname.toLowerCase());
}
