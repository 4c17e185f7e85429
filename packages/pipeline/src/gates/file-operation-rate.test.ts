import { describe, expect, it } from 'vitest';
import { FileOperationRate } from './file-operation-rate.ts';

describe('FileOperationRate', () => {
  it('allows `limit` operations in any minute and says when the next one may run', () => {
    let now = 1_000_000;
    const rate = new FileOperationRate(3, () => now);
    expect([rate.take(), rate.take()]).toEqual([undefined, undefined]);
    now += 20_000;
    expect(rate.take()).toBeUndefined();
    // The window holds t=0, t=0, t=20 s: the fourth waits until the first two are a minute old.
    expect(rate.take()).toBe(40_000);
    now += 40_000;
    expect([rate.take(), rate.take()]).toEqual([undefined, undefined]);
    expect(rate.take()).toBe(20_000);
    now += 20_000;
    expect(rate.take()).toBeUndefined();
  });

  it('a refused operation does not count', () => {
    let now = 0;
    const rate = new FileOperationRate(1, () => now);
    expect(rate.take()).toBeUndefined();
    for (now = 0; now < 5000; now += 1000) expect(rate.take()).toBe(60_000 - now);
    now = 60_000;
    expect(rate.take()).toBeUndefined();
  });
});
