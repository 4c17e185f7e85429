import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
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

describe('LeaseKeeper', () => {
  it('renews at once and then every lease / 3', async () => {
    const { renew, calls } = scripted({ renewed: ['a'], lost: [] });
    const keeper = new LeaseKeeper({ leaseMs: 150, renew, onLost: () => undefined });
    await sleep(230);
    keeper.stop();
    // t=0, 50, 100, 150, 200
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expect(calls.length).toBeLessThanOrEqual(6);
    const count = calls.length;
    await sleep(100);
    expect(calls.length).toBe(count);
    expect(keeper.running).toBe(false);
    expect(keeper.isValid()).toBe(false);
  });

  it('reports lost locks and keeps renewing the rest', async () => {
    const { renew } = scripted(
      { renewed: ['a', 'b'], lost: [] },
      { renewed: ['b'], lost: ['a'] },
      { renewed: ['b'], lost: [] },
    );
    const lost: string[][] = [];
    const keeper = new LeaseKeeper({ leaseMs: 60, renew, onLost: (l) => lost.push(l) });
    await sleep(100);
    expect(lost).toEqual([['a']]);
    expect(keeper.running).toBe(true);
    expect(keeper.isValid()).toBe(true);
    keeper.stop();
  });

  it('counts locks that vanished without a report as lost, and stops when none is left', async () => {
    const { renew, calls } = scripted({ renewed: ['a', 'b'], lost: [] }, { renewed: [], lost: [] });
    const lost: string[][] = [];
    const keeper = new LeaseKeeper({ leaseMs: 60, renew, onLost: (l) => lost.push(l) });
    await sleep(100);
    expect(lost).toEqual([['a', 'b']]);
    expect(keeper.running).toBe(false);
    expect(calls).toHaveLength(2);
  });

  it('reports errors and declares the lease lost once it ran out without a renewal', async () => {
    const { renew } = scripted({ renewed: ['a'], lost: [] }, new Error('redis down'));
    const lost: string[][] = [];
    const errors: unknown[] = [];
    const keeper = new LeaseKeeper({
      leaseMs: 90,
      renew,
      onLost: (l) => lost.push(l),
      onError: (e) => errors.push(e),
    });
    await sleep(60);
    expect(lost).toEqual([]);
    expect(errors.length).toBeGreaterThanOrEqual(1);
    await sleep(80);
    expect(lost).toEqual([['a']]);
    expect(keeper.running).toBe(false);
  });

  it('declares the lease lost when a renewal hangs past it', async () => {
    const { renew } = scripted({ renewed: ['a'], lost: [] }, 'hang');
    const lost: string[][] = [];
    const keeper = new LeaseKeeper({ leaseMs: 60, renew, onLost: (l) => lost.push(l) });
    await sleep(40);
    expect(keeper.isValid()).toBe(true);
    await sleep(60);
    expect(lost).toEqual([['a']]);
    expect(keeper.isValid()).toBe(false);
  });
});
