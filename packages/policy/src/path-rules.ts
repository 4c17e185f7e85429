import type { ResolvedPathRule } from '@pullwright/core';
import picomatch from 'picomatch';

interface PathRuleMatch {
  rule: ResolvedPathRule;
  files: string[];
}

const matchers = new Map<string, (file: string) => boolean>();

/** `dot: true` so `.github/**` and `**\/.env` mean what they say; patterns are case-sensitive like git paths. */
export function globMatcher(pattern: string): (file: string) => boolean {
  let m = matchers.get(pattern);
  if (!m) {
    m = picomatch(pattern, { dot: true });
    matchers.set(pattern, m);
  }
  return m;
}

/** The rules any changed file falls under, each with the files that matched it. */
export function matchPathRules(rules: readonly ResolvedPathRule[], files: readonly string[]): PathRuleMatch[] {
  const out: PathRuleMatch[] = [];
  for (const rule of rules) {
    const ms = rule.paths.map(globMatcher);
    const hit = files.filter((f) => ms.some((m) => m(f)));
    if (hit.length > 0) out.push({ rule, files: hit });
  }
  return out;
}
