import { createHash } from 'node:crypto';

/**
 * Names of failing tests, read from the output of the usual runners: node:test (TAP),
 * vitest/jest, mocha, pytest, go test, cargo test, rspec. Unknown formats give an empty list;
 * callers then compare whole checks instead of tests.
 */
const FAILURE_PATTERNS: readonly RegExp[] = [
  /^\s*not ok \d+ - (.+?)(?:\s+#.*)?$/gm, // TAP / node --test
  /^\s*(?:×|✕|✗)\s+(.+?)(?:\s+\d+ms)?$/gm, // vitest, jest
  /^\s*FAIL\s+(\S+\s+>\s+.+)$/gm, // vitest summary "FAIL file > suite > test"
  /^FAILED ([^\s]+::[^\s]+)/gm, // pytest -q summary
  /^--- FAIL: (\S+)/gm, // go test
  /^test (\S+) \.\.\. FAILED$/gm, // cargo test
  /^rspec (\.\/\S+:\d+)/gm, // rspec summary
  /^\s*\d+\) (.+)$/gm, // mocha numbered failures
];

export function failingTests(output: string): string[] {
  const names = new Set<string>();
  for (const pattern of FAILURE_PATTERNS) {
    for (const m of output.matchAll(pattern)) {
      const name = m[1]?.trim();
      if (name && name.length < 300) names.add(name);
    }
  }
  return [...names].sort();
}

/** Strips what changes between identical failures: numbers, durations, paths, hex ids. */
export function normalizeError(text: string): string {
  return text
    .replace(/\/[\w./-]+/g, '<path>')
    .replace(/0x[0-9a-f]+/gi, '<hex>')
    .replace(/\d+(\.\d+)?\s*m?s\b/g, '<time>')
    .replace(/\d+/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * One id for "the same failure": the failing test names when the runner tells us, else
 * the normalised tail of the output. Equal fingerprints after a repair mean no progress.
 */
export function failureFingerprint(checkName: string, output: string): string {
  const tests = failingTests(output);
  const basis = tests.length > 0 ? tests.join('\n') : normalizeError(output.slice(-2000));
  return createHash('sha256').update(`${checkName}\n${basis}`).digest('hex').slice(0, 16);
}
