import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './retry-delay.ts';

describe('retryDelayMs', () => {
  it('doubles from 2 s, caps at 5 min, and jitters by at most 20 %', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, mid))).toEqual([2000, 4000, 8000, 16000]);
    expect(retryDelayMs(30, mid)).toBe(300_000);
    expect(retryDelayMs(1, () => 0)).toBe(1600);
    expect(retryDelayMs(1, () => 1)).toBe(2400);
  });
});
