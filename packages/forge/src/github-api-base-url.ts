/**
 * REST base for a GitHub web URL: github.com serves its API on its own host, a GitHub
 * Enterprise Server under `/api/v3` of the same host.
 */
export function githubApiBaseUrl(webUrl: string): string {
  const url = new URL(webUrl);
  if (url.hostname === 'github.com' || url.hostname === 'www.github.com') return 'https://api.github.com';
  return `${webUrl.replace(/\/+$/, '')}/api/v3`;
}
