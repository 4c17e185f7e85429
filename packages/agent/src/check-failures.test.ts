import { describe, expect, it } from 'vitest';
import {
  failingTests,
  failureFingerprint,
  firstFailingTrace,
  passingTests,
  testCounts,
  trimFailure,
} from './check-failures.ts';

describe('failingTests', () => {
  it.each([
    [
      'node:test',
      'TAP version 13\nok 1 - lowercases\nnot ok 2 - joins every word with a dash\n  ---\nnot ok 3 - ignores spaces # time=1ms\n',
      ['ignores spaces', 'joins every word with a dash'],
    ],
    ['vitest', ' ✓ src/a.test.ts > adds 1ms\n × src/a.test.ts > subtracts 3ms\n', ['src/a.test.ts > subtracts']],
    ['jest', '  ✕ handles empty input (5 ms)\n', ['handles empty input (5 ms)']],
    ['pytest', 'FAILED tests/test_math.py::test_add - assert 1 == 2\n', ['tests/test_math.py::test_add']],
    ['go', '--- FAIL: TestParse (0.00s)\n', ['TestParse']],
    ['cargo', 'test parser::tests::empty ... FAILED\n', ['parser::tests::empty']],
    ['nothing', 'Error: build failed\n', []],
  ])('%s', (_name, output, expected) => {
    expect(failingTests(output)).toEqual(expected);
  });
});

describe('passingTests', () => {
  it.each([
    [
      'node:test, nested, with skipped and todo tests left out',
      'TAP version 13\n# Subtest: clamp\n    ok 1 - keeps values inside\n    not ok 2 - raises low values\nnot ok 1 - clamp\nok 2 - top level # time=1ms\nok 3 - later # SKIP\nok 4 - someday # TODO\n',
      ['keeps values inside', 'top level'],
    ],
    ['vitest', ' ✓ src/a.test.ts > adds 1ms\n × src/a.test.ts > subtracts 3ms\n', ['src/a.test.ts > adds']],
    ['jest', '  ✓ handles empty input (5 ms)\n', ['handles empty input']],
    [
      'pytest -rA',
      'PASSED tests/test_math.py::test_add\nFAILED tests/test_math.py::test_sub - x\n',
      ['tests/test_math.py::test_add'],
    ],
    ['go -v', '--- PASS: TestParse (0.00s)\n--- FAIL: TestOther (0.00s)\n', ['TestParse']],
    ['cargo', 'test parser::tests::empty ... ok\ntest parser::tests::full ... FAILED\n', ['parser::tests::empty']],
    ['nothing', 'built in 3s\n', []],
  ])('%s', (_name, output, expected) => {
    expect(passingTests(output)).toEqual(expected);
  });
});

describe('failureFingerprint', () => {
  it('is equal for the same failure with other timings and paths', () => {
    const a = 'Error at /tmp/a1/x.js:10 after 13ms\nexpected 1 got 2';
    const b = 'Error at /tmp/b7/x.js:11 after 250ms\nexpected 1 got 2';
    expect(failureFingerprint('build', a)).toBe(failureFingerprint('build', b));
  });

  it('differs when other tests fail', () => {
    expect(failureFingerprint('test', 'not ok 1 - a\n')).not.toBe(failureFingerprint('test', 'not ok 1 - b\n'));
  });
});

describe('trimFailure: the tester truncation rule (seed 002)', () => {
  it('keeps an output of 4,000 characters or fewer as it is', () => {
    const exact = 'x'.repeat(4000);
    expect(trimFailure(exact)).toBe(exact);
    expect(trimFailure('short')).toBe('short');
  });

  it('over 4,000 characters: the first 2,500, "\\n...\\n", the last 1,000', () => {
    const head = 'h'.repeat(2500);
    const middle = 'm'.repeat(600);
    const tail = 't'.repeat(1000);
    const out = trimFailure(`${head}${middle}${tail}`);
    expect(out).toBe(`${head}\n...\n${tail}`);
    expect(out).toHaveLength(2500 + 5 + 1000);
    // One character over the limit already takes the rule.
    const justOver = `${'a'.repeat(2500)}${'b'.repeat(1501)}`;
    expect(trimFailure(justOver)).toBe(`${'a'.repeat(2500)}\n...\n${'b'.repeat(1000)}`);
  });
});

describe('test report helpers', () => {
  it.each([
    ['node:test', 'ok 1 - a\nnot ok 2 - b\n# tests 2\n# pass 1\n# fail 1\n', { passed: 1, failed: 1 }],
    ['vitest', ' Test Files  1 failed (1)\n      Tests  1 failed | 3 passed (4)\n', { passed: 3, failed: 1 }],
    ['vitest green', '      Tests  3 passed (3)\n', { passed: 3, failed: 0 }],
    ['jest', 'Tests:       2 failed, 5 passed, 7 total\n', { passed: 5, failed: 2 }],
    ['pytest', '==== 1 failed, 4 passed in 0.12s ====\n', { passed: 4, failed: 1 }],
    ['unknown', 'Error: build failed\n', undefined],
  ])('counts %s', (_name, output, expected) => {
    expect(testCounts(output)).toEqual(expected);
  });

  it('the first failing trace starts at the first failure line', () => {
    const output = 'ok 1 - a\nnot ok 2 - b\n  expected: 2\n  actual: 1\nnot ok 3 - c\n';
    expect(firstFailingTrace(output)).toMatch(/^not ok 2 - b\n {2}expected: 2/);
    expect(firstFailingTrace('nothing recognisable\nlast line')).toBe('nothing recognisable\nlast line');
  });
});
