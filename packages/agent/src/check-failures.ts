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

/**
 * Names of passing tests, from the same runners' outputs where they print them: node:test
 * (TAP; skipped and todo tests are not passes), vitest/jest/mocha with a per-test reporter,
 * pytest `-rA`, go test `-v`, cargo test. What an evaluation task's red→green and stay-green
 * tests are named by (see @pullwright/eval).
 */
const PASS_PATTERNS: readonly RegExp[] = [
  /^\s*ok \d+ - (?!.*#\s*(?:SKIP|TODO)\b)(.+?)(?:\s+#.*)?$/gm, // TAP / node --test
  /^\s*(?:✓|✔|√)\s+(.+?)(?:\s+\(?\d+\s?ms\)?)?$/gm, // vitest, jest, mocha
  /^PASSED ([^\s]+::[^\s]+)/gm, // pytest -rA summary
  /^\s*--- PASS: (\S+)/gm, // go test -v
  /^test (\S+) \.\.\. ok$/gm, // cargo test
];

function matchedNames(output: string, patterns: readonly RegExp[]): string[] {
  const names = new Set<string>();
  for (const pattern of patterns) {
    for (const m of output.matchAll(pattern)) {
      const name = m[1]?.trim();
      if (name && name.length < 300) names.add(name);
    }
  }
  return [...names].sort();
}

export function failingTests(output: string): string[] {
  return matchedNames(output, FAILURE_PATTERNS);
}

export function passingTests(output: string): string[] {
  return matchedNames(output, PASS_PATTERNS);
}

/** Strips what changes between identical failures: numbers, durations, paths, hex ids. */
function normalizeError(text: string): string {
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

/**
 * Head and tail of a long check output (seed 002, the tester's rule): over 4,000 characters
 * it becomes the first 2,500, a `\n...\n` marker and the last 1,000 — where the first error
 * and the runner's summary are.
 */
export function trimFailure(output: string): string {
  return output.length <= 4000 ? output : `${output.slice(0, 2500)}\n...\n${output.slice(-1000)}`;
}

/** Counts of passed and failed tests, when the runner's summary line tells them (seed 004's verifier report). */
export function testCounts(output: string): { passed: number; failed: number } | undefined {
  const summaries: [RegExp, (m: RegExpMatchArray) => { passed: number; failed: number }][] = [
    // node --test / TAP: "# pass 3" and "# fail 1"
    [/^# pass (\d+)\s*$[\s\S]*?^# fail (\d+)\s*$/m, (m) => ({ passed: Number(m[1]), failed: Number(m[2]) })],
    // vitest: "Tests  1 failed | 3 passed (4)"
    [
      /^\s*Tests\s+(?:(\d+) failed\s*\|?\s*)?(?:(\d+) passed)?/m,
      (m) => ({ passed: Number(m[2] ?? 0), failed: Number(m[1] ?? 0) }),
    ],
    // jest: "Tests:       1 failed, 3 passed, 4 total"
    [
      /^Tests:\s+(?:(\d+) failed,\s*)?(?:(\d+) passed)?/m,
      (m) => ({ passed: Number(m[2] ?? 0), failed: Number(m[1] ?? 0) }),
    ],
    // pytest: "1 failed, 3 passed in 0.12s" / "5 passed in 0.12s"
    [
      /(?:(\d+) failed, )?(\d+) passed(?:, \d+ \w+)* in [\d.]+s/,
      (m) => ({ passed: Number(m[2] ?? 0), failed: Number(m[1] ?? 0) }),
    ],
  ];
  for (const [re, read] of summaries) {
    const m = output.match(re);
    if (m && (m[1] !== undefined || m[2] !== undefined)) return read(m);
  }
  return undefined;
}

const TRACE_START = /^\s*(not ok \d+|FAIL\b|FAILED\b|--- FAIL|×|✕|✗|Traceback|\w*Error\b|error(\[\w+\])?:)/m;

/**
 * The first failing trace of a check's output (seed 004: "summary and first failing trace"):
 * from the first line that looks like a failure, 40 lines at most, cut by `trimFailure`.
 * A failing output with no recognisable failure line gives its tail.
 */
export function firstFailingTrace(output: string): string {
  const lines = output.split('\n');
  const start = lines.findIndex((l) => TRACE_START.test(l));
  const trace = start === -1 ? lines.slice(-40) : lines.slice(start, start + 40);
  return trimFailure(trace.join('\n').trim());
}
