import { describe, expect, it } from 'vitest';
import { failingTests, failureFingerprint } from './check-failures.ts';

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
