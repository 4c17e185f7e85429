import { describe, expect, it } from 'vitest';
import { wilsonInterval } from './wilson-interval.ts';

describe('wilsonInterval', () => {
  it.each([
    // Reference values: Wilson's formula at z = 1.96 (e.g. Newcombe 1998, table I).
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [29, 29, 0.883, 1],
    [1, 2, 0.0945, 0.9055],
  ])('%i of %i: [%f, %f]', (k, n, low, high) => {
    const got = wilsonInterval(k, n);
    expect(got.low).toBeCloseTo(low, 4);
    expect(got.high).toBeCloseTo(high, 4);
  });

  it('knows nothing from no trials', () => {
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });
});
