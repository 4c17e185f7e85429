import { describe, expect, it } from 'vitest';
import { parseLockValue } from './lock-value.ts';

describe('parseLockValue', () => {
  it.each([
    ['7 1700000000000 op1', { token: 7, since: 1700000000000, opId: 'op1' }],
    ['7 1700000000000 op with 2 spaces', { token: 7, since: 1700000000000, opId: 'op with 2 spaces' }],
    ['7 1700000000000 line\nbreak', { token: 7, since: 1700000000000, opId: 'line\nbreak' }],
    [null, null],
    ['', null],
    ['x 1 op', null],
    ['7 op', null],
  ])('%j', (value, expected) => {
    expect(parseLockValue(value)).toEqual(expected);
  });
});
