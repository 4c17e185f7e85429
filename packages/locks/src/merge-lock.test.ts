import { setTimeout as sleep } from 'node:timers/promises';
import { redisTest } from '@pullwright/testing';
import { eventually } from '@pullwright/testing/eventually';
import { describe, expect } from 'vitest';
import { FileLocks } from './file-locks.ts';
import { LockWaitError } from './lock-wait-error.ts';
import { LockWaiter } from './lock-waiter.ts';
import { lostReports } from './lost-reports.ts';
import { MergeLock } from './merge-lock.ts';
import { untilSubscribed } from './until-subscribed.ts';

const REPO = 'acme/widgets';
/** A lease the test lets run out (by Redis's clock: it polls until Redis has let it go). */
const SHORT_LEASE_MS = 100;
/** A lease a keeper must hold alive (renewing every third): see file-locks.test.ts. */
const KEPT_LEASE_MS = 900;
const LONG_POLL_MS = 30_000;

const test = redisTest.extend<{
  mergeLock: (options?: { pollMs?: number }) => MergeLock;
  /** Closed after the test (lock classes, a shared waiter). */
  closeAfter: <T extends { close(): Promise<void> }>(closable: T) => T;
}>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  closeAfter: async ({}, use) => {
    const open: Array<{ close(): Promise<void> }> = [];
    await use((closable) => {
      open.push(closable);
      return closable;
    });
    await Promise.all(open.map((c) => c.close()));
  },
  mergeLock: async ({ connect, prefix, closeAfter }, use) => {
    await use((options = {}) => closeAfter(new MergeLock(connect(), { prefix, ...options })));
  },
});

describe('MergeLock', () => {
  test('grants one holder per repo with a fencing token and refuses others', async ({ mergeLock }) => {
    const lock = mergeLock();
    const first = await lock.acquire(REPO, { opId: 'op1' });
    expect(first).toEqual({ ok: true, token: 1 });
    const refused = await lock.acquire(REPO, { opId: 'op2' });
    expect(refused).toMatchObject({ ok: false, heldBy: { opId: 'op1' } });
    expect(refused.ok === false && refused.heldBy.since).toBeGreaterThan(Date.now() - 5000);
    expect(await lock.acquire('acme/other', { opId: 'op2' })).toEqual({ ok: true, token: 1 });
    expect(await lock.holder(REPO)).toMatchObject({ opId: 'op1', token: 1 });
    expect((await lock.holder(REPO))!.expiresInMs).toBeGreaterThan(4 * 60_000);
  });

  test('lets exactly one of many racing clients win', async ({ mergeLock }) => {
    const locks = Array.from({ length: 8 }, () => mergeLock());
    const results = await Promise.all(locks.map((l, i) => l.acquire(REPO, { opId: `op${i}` })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  test('re-grants to the same operation with a higher token and shares the repo counter with file locks', async ({
    mergeLock,
    connect,
    prefix,
    closeAfter,
  }) => {
    const lock = mergeLock();
    const files = closeAfter(new FileLocks(connect(), { prefix }));
    await lock.acquire(REPO, { opId: 'op1' });
    expect(await files.acquire(REPO, ['a.ts'], { opId: 'op9' })).toMatchObject({ token: 2 });
    expect(await lock.acquire(REPO, { opId: 'op1' })).toEqual({ ok: true, token: 3 });
  });

  test('renews and releases only for the owner', async ({ mergeLock }) => {
    const lock = mergeLock();
    // Long enough that no stall lets it run out before the renewals below; 60 s shows the renewal.
    await lock.acquire(REPO, { opId: 'op1' }, 10_000);
    expect(await lock.renew(REPO, 'op2', 60_000)).toBe(false);
    expect(await lock.release(REPO, 'op2')).toBe(false);
    expect(await lock.renew(REPO, 'op1', 60_000)).toBe(true);
    expect((await lock.holder(REPO))!.expiresInMs).toBeGreaterThan(50_000);
    expect(await lock.release(REPO, 'op1')).toBe(true);
    expect(await lock.holder(REPO)).toBeNull();
    expect(await lock.release(REPO, 'op1')).toBe(false);
  });

  test('expires, and a late release of the old owner leaves the new holder alone', async ({ mergeLock }) => {
    const lock = mergeLock();
    await lock.acquire(REPO, { opId: 'op1' }, SHORT_LEASE_MS);
    await eventually('the lease has run out', async () => (await lock.holder(REPO)) === null, { intervalMs: 20 });
    expect(await lock.renew(REPO, 'op1')).toBe(false);
    const second = await lock.acquire(REPO, { opId: 'op2' });
    expect(second).toEqual({ ok: true, token: 2 });
    expect(await lock.release(REPO, 'op1')).toBe(false);
    expect(await lock.holder(REPO)).toMatchObject({ opId: 'op2', token: 2 });
  });

  test('waits for a release through a waiter shared with FileLocks', async ({
    mergeLock,
    connect,
    prefix,
    closeAfter,
  }) => {
    const redis = connect();
    const waiter = closeAfter(new LockWaiter(redis, { pollMs: LONG_POLL_MS }));
    const holder = mergeLock();
    const waiting = new MergeLock(redis, { prefix, waiter });
    const files = new FileLocks(redis, { prefix, waiter });
    await holder.acquire(REPO, { opId: 'op1' });
    await files.acquire(REPO, ['a.ts'], { opId: 'op1' });
    const started = performance.now();
    const mergeFree = waiting.waitFor(REPO, { timeoutMs: LONG_POLL_MS });
    const fileFree = files.waitFor(REPO, ['a.ts'], { timeoutMs: LONG_POLL_MS });
    // One shared subscriber connection listens for both.
    await untilSubscribed(connect(), prefix, REPO, 1);
    await holder.release(REPO, 'op1');
    await mergeFree;
    await files.release(REPO, 'op1');
    await fileFree;
    // Woken by the messages: the poll and the timeouts are LONG_POLL_MS away.
    expect(performance.now() - started).toBeLessThan(LONG_POLL_MS / 2);
    // Closing the lock classes leaves a shared waiter open for its owner.
    await waiting.close();
    await files.close();
    await holder.acquire(REPO, { opId: 'op2' }, SHORT_LEASE_MS);
    await waiting.waitFor(REPO, { timeoutMs: LONG_POLL_MS });
  });

  test('times out naming the holder', async ({ mergeLock }) => {
    const lock = mergeLock({ pollMs: 20 });
    await lock.acquire(REPO, { opId: 'op1' });
    const err = await lock.waitFor(REPO, { timeoutMs: 60 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockWaitError);
    expect((err as LockWaitError).code).toBe('conflict');
    expect((err as LockWaitError).context.heldBy).toMatchObject([{ path: 'merge', opId: 'op1' }]);
  });

  test('keeps the lease while the merge runs and stops on release', async ({ mergeLock }) => {
    const lock = mergeLock();
    await lock.acquire(REPO, { opId: 'op1' }, KEPT_LEASE_MS);
    const lost: string[][] = [];
    const keeper = lock.keep(REPO, 'op1', { leaseMs: KEPT_LEASE_MS, onLost: (l) => lost.push(l) });
    // Outlive the lease it was acquired with: only renewals can have kept it.
    await sleep(KEPT_LEASE_MS * 1.5);
    expect(await lock.holder(REPO)).toMatchObject({ opId: 'op1' });
    expect(lost).toEqual([]);
    await lock.release(REPO, 'op1');
    expect(keeper.running).toBe(false);
  });

  test('reports the merge lock lost when it was taken away', async ({ mergeLock, connect, prefix }) => {
    const lock = mergeLock();
    const redis = connect();
    await lock.acquire(REPO, { opId: 'op1' }, KEPT_LEASE_MS);
    const { lost, onLost, first } = lostReports();
    const keeper = lock.keep(REPO, 'op1', { leaseMs: KEPT_LEASE_MS, onLost });
    await redis.del(`${prefix}:{${REPO}}:merge`);
    await lock.acquire(REPO, { opId: 'op2' });
    // The next renewal (within a third of the lease) finds it taken.
    await first;
    expect(lost).toEqual([['merge']]);
    expect(keeper.running).toBe(false);
  });
});
