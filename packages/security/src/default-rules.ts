import { readFileSync } from 'node:fs';
import { parseGitleaksConfig } from './gitleaks-config.ts';
import type { SecretRuleSet } from './secret-rule.ts';

/** The shipped rules as gitleaks TOML: readable, diffable, and the base `useDefault` extends. */
const DEFAULT_RULES_TOML: string = readFileSync(new URL('./default-rules.toml', import.meta.url), 'utf8');

/** Compiled once at import; a broken default file fails loudly at start-up, not at first scan. */
export const DEFAULT_RULES: SecretRuleSet = parseGitleaksConfig(DEFAULT_RULES_TOML, { source: 'default' });
