import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LeaseKeeper, type RenewResult } from './lease-keeper.ts';

/** A renew function that answers from a script of results, then repeats the last one. */
function scripted(...results: Array<RenewResult | Error | 'hang'>) {
  const calls: number[] = [];
  const renew = async (): Promise<RenewResult> => {
    calls.push(performance.now());
    const next = results.length > 1 ? results.shift()! : results[0]!;
    if (next === 'hang') return new Promise(() => undefined);
    if (next instanceof Error) throw next;
    return next;
  };
  return { renew, calls };
}

// The keeper is timers and a clock: fake both, so every assertion holds at an exact instant
// and a busy machine cannot move one (no sleeps, no margins).
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('LeaseKeeper', () => {
  it('renews at once and then every lease / 3, and never after stop', async () => {
    const { renew, calls } = scripted({ renewed: ['a'], lost: [] });
    const start = performance.now();
    const lost: string[][] = [];
    const keeper = new LeaseKeeper({ leaseMs: 150, renew, onLost: (l) => lost.push(l) });
    await vi.advanceTimersByTimeAsync(230);
    expect(calls.map((t) => t - start)).toEqual([0, 50, 100, 150, 200]);
    keeper.stop();
    // Ten leases later: no renewal, and no expiry reported for a lease we gave up.
    await vi.advanceTimersByTimeAsync(1500);
    expect(calls).toHaveLength(5);
    expect(lost).toEqual([]);
    expect(keeper.running).toBe(false);
    expect(keeper.isValid()).toBe(false);
  });

  it('reports lost locks and keeps renewing the rest', async () => {
    const { renew, calls } = scripted(
      { renewed: ['a', 'b'], lost: [] },
      { renewed: ['b'], lost: ['a'] },
      { renewed: ['b'], lost: [] },
    );
    const lost: string[][] = [];
    const keeper = new LeaseKeeper({ leaseMs: 60, renew, onLost: (l) => lost.push(l) });
    await vi.advanceTimersByTimeAsync(100);
    // At 0, 20, … 100: the third and later renewals keep b alone.
    expect(calls).toHaveLength(6);
    expect(lost).toEqual([['a']]);
    expect(keeper.running).toBe(true);
    expect(keeper.isValid()).toBe(true);
    keeper.stop();
  });

  it('counts locks that vanished without a report as lost, and stops when none is left', async () => {
    const { renew, calls } = scripted({ renewed: ['a', 'b'], lost: [] }, { renewed: [], lost: [] });
    const lost: string[][] = [];
    const keeper = new LeaseKeeper({ leaseMs: 60, renew, onLost: (l) => lost.push(l) });
    await vi.advanceTimersByTimeAsync(100);
    expect(lost).toEqual([['a', 'b']]);
    expect(keeper.running).toBe(false);
    expect(calls).toHaveLength(2);
  });

  it('reports errors and declares the lease lost when it runs out without a renewal', async () => {
    const { renew } = scripted({ renewed: ['a'], lost: [] }, new Error('redis down'));
    const lost: string[][] = [];
    const errors: unknown[] = [];
    const keeper = new LeaseKeeper({
      leaseMs: 90,
      renew,
      onLost: (l) => lost.push(l),
      onError: (e) => errors.push(e),
    });
    // The last good renewal was at 0: the lease holds until 90, not a moment longer.
    await vi.advanceTimersByTimeAsync(89);
    expect(lost).toEqual([]);
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(keeper.isValid()).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(lost).toEqual([['a']]);
    expect(keeper.running).toBe(false);
  });

  it('declares the lease lost when a renewal hangs past it', async () => {
    const { renew } = scripted({ renewed: ['a'], lost: [] }, 'hang');
    const lost: string[][] = [];
    const keeper = new LeaseKeeper({ leaseMs: 60, renew, onLost: (l) => lost.push(l) });
    await vi.advanceTimersByTimeAsync(59);
    expect(keeper.isValid()).toBe(true);
    expect(lost).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(lost).toEqual([['a']]);
    expect(keeper.isValid()).toBe(false);
  });
});
