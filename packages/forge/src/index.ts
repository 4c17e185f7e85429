export { BrokeredInstallationTokens } from './brokered-installation-tokens.ts';
export * from './forge.ts';
export * from './github-api-base-url.ts';
export * from './github-forge.ts';
export {
  DEFAULT_REFRESH_MARGIN_MS,
  GitHubInstallationTokens,
  holderOperation,
  INSTALLATION_TOKEN_PERMISSIONS,
  type InstallationTokenSource,
  type PermissionGap,
} from './github-installation-tokens.ts';
export * from './import-repository.ts';
export { inJobScope } from './job-scope.ts';
export * from './local-forge.ts';
export { scannedForge } from './scanned-forge.ts';
export * from './traced-forge.ts';
