export { deepScan } from './deep-scan.ts';
export { DEFAULT_RULES } from './default-rules.ts';
export { isDotGitName } from './dot-git-name.ts';
export { loadGitleaksConfigFile } from './gitleaks-config.ts';
export { hmacSha256Hex, hmacSha256Matches } from './hmac-signature.ts';
export { jobCredential, jobCredentialSubject } from './job-credential.ts';
export { KeywordPrefilter } from './keyword-prefilter.ts';
export {
  describeOutboundFinding,
  type OutboundFinding,
  OutboundSecretError,
  type OutboundText,
  refuseSecrets,
  scanOutbound,
} from './outbound-scan.ts';
export { DEFAULT_PROTECTED, PathGuard, SECRET_FILE_PATTERNS } from './path-guard.ts';
export { type PublishableChange, scanPublishableChange } from './publishable-change.ts';
export { Redactor } from './redactor.ts';
export { type GitAuth, GitCommandError, type GitProtocol, protocolOf, runGit } from './run-git.ts';
export { sanitizeUntrustedText } from './sanitize-untrusted-text.ts';
export { runScanCommand } from './scan-command.ts';
export { SecretScanner } from './secret-scanner.ts';
