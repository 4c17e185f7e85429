export {
  DER_PRIVATE_KEY_RULE,
  type DeepFinding,
  type DeepScanOptions,
  deepScan,
  type SecretEncoding,
} from './deep-scan.ts';
export * from './default-rules.ts';
export * from './der-private-key.ts';
export * from './dot-git-name.ts';
export * from './gitignore-matcher.ts';
export * from './gitleaks-config.ts';
export * from './go-regex.ts';
export * from './hmac-signature.ts';
export * from './job-credential.ts';
export * from './keyword-prefilter.ts';
export * from './line-index.ts';
export * from './match-plan.ts';
export {
  describeOutboundFinding,
  type OutboundChannel,
  type OutboundFinding,
  OutboundSecretError,
  type OutboundText,
  refuseSecrets,
  scanOutbound,
} from './outbound-scan.ts';
export * from './path-guard.ts';
export * from './path-spellings.ts';
export * from './publishable-change.ts';
export * from './redactor.ts';
export * from './run-git.ts';
export * from './sanitize-untrusted-text.ts';
export * from './scan-command.ts';
export * from './secret-file-name.ts';
export * from './secret-rule.ts';
export * from './secret-scanner.ts';
export * from './shannon-entropy.ts';
export * from './token-checksum.ts';
