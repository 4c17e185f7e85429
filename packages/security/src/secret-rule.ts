import type { TokenChecksum } from './token-checksum.ts';

/**
 * The compiled form of a gitleaks rule. Field meanings follow gitleaks' config so a team's
 * `.gitleaks.toml` means the same thing here as it does in their CI.
 */
export interface SecretAllowlist {
  /** 'OR' (default): any listed check allows the finding; 'AND': every listed check must. */
  condition: 'OR' | 'AND';
  paths: RegExp[];
  regexes: RegExp[];
  /** What `regexes` test: the secret (default), the whole match, or the whole line. */
  regexTarget: 'secret' | 'match' | 'line';
  /** Lower-cased; a secret containing one is treated as a placeholder. */
  stopwords: string[];
}

export interface SecretRule {
  id: string;
  description: string;
  /** Global + sticky-free + hasIndices, so group offsets are exact. Absent for path-only rules. */
  regex?: RegExp;
  /** Only files whose path matches are considered (with `regex`), or reported (without). */
  path?: RegExp;
  /** Which capture group is the secret; 0 = the first non-empty group, else the whole match. */
  secretGroup: number;
  /** Minimum Shannon entropy (bits/char) of the secret; 0 disables the check. */
  entropy: number;
  /** Lower-cased. The rule only runs near an occurrence of one of them; none = always runs. */
  keywords: string[];
  allowlists: SecretAllowlist[];
  /** A checksummed format: a token that verifies is reported whatever the allowlists say. */
  checksum?: TokenChecksum;
  /** The pattern can span many lines (PEM blocks), so it gets a larger search window. */
  multiline: boolean;
}

export interface SecretRuleSet {
  rules: SecretRule[];
  /** Allowlists applied to every rule. */
  allowlists: SecretAllowlist[];
}
