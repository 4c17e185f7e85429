export { BrokeredInstallationTokens } from './brokered-installation-tokens.ts';
export type { CheckRun, CommitToCreate, Forge, PullRequest, TreeChange } from './forge.ts';
export { githubApiBaseUrl } from './github-api-base-url.ts';
export { GitHubForge } from './github-forge.ts';
export {
  GitHubInstallationTokens,
  holderOperation,
  INSTALLATION_TOKEN_PERMISSIONS,
  type PermissionGap,
} from './github-installation-tokens.ts';
export { importRepository, listRepositories, parseImportSource } from './import-repository.ts';
export { inJobScope } from './job-scope.ts';
export { LocalForge } from './local-forge.ts';
export { scannedForge } from './scanned-forge.ts';
export { tracedForge } from './traced-forge.ts';
