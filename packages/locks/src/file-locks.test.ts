import { setTimeout as sleep } from 'node:timers/promises';
import { PullwrightError } from '@pullwright/core';
import { redisTest } from '@pullwright/testing';
import { eventually } from '@pullwright/testing/eventually';
import { describe, expect } from 'vitest';
import { FileLocks } from './file-locks.ts';
import { LockWaitError } from './lock-wait-error.ts';
import { lostReports } from './lost-reports.ts';
import { untilSubscribed } from './until-subscribed.ts';

const REPO = 'acme/widgets';
/**
 * Leases the tests let run out. Redis expires them by its own clock (the one clock every
 * worker shares, see docs/decisions.md), so a test cannot move it: it polls until Redis has
 * let the lease go, which a short lease makes quick.
 */
const SHORT_LEASE_MS = 100;
/**
 * Leases the tests rely on staying alive while a keeper renews them (every third of it). A
 * renewal is lost only when the event loop or Redis stalls for two thirds of the lease: 600 ms
 * on a loaded 2-core runner, against stalls of ~100 ms seen there.
 */
const KEPT_LEASE_MS = 900;
/** Waiters that must be woken by a message or an expiry, never by this poll. */
const LONG_POLL_MS = 30_000;

/** Until Redis has let every short lease of REPO lapse. */
const leasesRunOut = (l: FileLocks) =>
  eventually('the leases have run out', async () => (await l.holders(REPO)).length === 0, { intervalMs: 20 });

const test = redisTest.extend<{ locks: (options?: { pollMs?: number; defaultLeaseMs?: number }) => FileLocks }>({
  locks: async ({ connect, prefix }, use) => {
    const open: FileLocks[] = [];
    await use((options = {}) => {
      const instance = new FileLocks(connect(), { prefix, ...options });
      open.push(instance);
      return instance;
    });
    await Promise.all(open.map((l) => l.close()));
  },
});

async function expectError(promise: Promise<unknown>, code: string): Promise<PullwrightError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PullwrightError);
  expect((err as PullwrightError).code).toBe(code);
  return err as PullwrightError;
}

describe('FileLocks.acquire', () => {
  test('grants every path, sorted and de-duplicated, with a fencing token', async ({ locks }) => {
    const l = locks();
    const grant = await l.acquire(REPO, ['src/b.ts', 'src/a.ts', 'src/b.ts'], { opId: 'op1' });
    expect(grant).toEqual({ ok: true, token: 1, paths: ['src/a.ts', 'src/b.ts'] });
    const holders = await l.holders(REPO);
    expect(holders.map((h) => [h.path, h.opId, h.token])).toEqual([
      ['src/a.ts', 'op1', 1],
      ['src/b.ts', 'op1', 1],
    ]);
    expect(holders[0]!.since).toBeGreaterThan(Date.now() - 5000);
    // Default lease is 30 minutes.
    expect(holders[0]!.expiresInMs).toBeGreaterThan(29 * 60_000);
  });

  test('is all or nothing and names every path held by someone else', async ({ locks }) => {
    const l = locks();
    await l.acquire(REPO, ['a.ts', 'c.ts'], { opId: 'op1' });
    const refused = await l.acquire(REPO, ['a.ts', 'b.ts', 'c.ts'], { opId: 'op2' });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.heldBy.map((h) => [h.path, h.opId])).toEqual([
      ['a.ts', 'op1'],
      ['c.ts', 'op1'],
    ]);
    expect(refused.heldBy[0]!.since).toBeGreaterThan(0);
    // b.ts was not locked by the refused grant.
    expect((await l.holders(REPO)).map((h) => h.path)).toEqual(['a.ts', 'c.ts']);
    expect(await l.acquire(REPO, ['b.ts'], { opId: 'op3' })).toMatchObject({ ok: true, paths: ['b.ts'] });
  });

  test('lets exactly one of many racing clients win an overlapping set', async ({ locks }) => {
    const clients = Array.from({ length: 10 }, () => locks());
    const results = await Promise.all(
      clients.map((l, i) => l.acquire(REPO, [`own-${i}.ts`, 'shared.ts'], { opId: `op${i}` })),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    // Losers left nothing behind: only the winner's two files are locked.
    expect(await clients[0]!.holders(REPO)).toHaveLength(2);
  });

  test('re-grants paths the owner already holds with a higher token and the original since', async ({ locks }) => {
    const l = locks();
    await l.acquire(REPO, ['a.ts'], { opId: 'op1' });
    const before = await l.holders(REPO);
    // A later re-grant, so a refreshed `since` would differ.
    await sleep(5);
    const again = await l.acquire(REPO, ['a.ts', 'b.ts'], { opId: 'op1' });
    expect(again).toEqual({ ok: true, token: 2, paths: ['a.ts', 'b.ts'] });
    const after = await l.holders(REPO);
    expect(after.map((h) => h.token)).toEqual([2, 2]);
    expect(after[0]!.since).toBe(before[0]!.since);
  });

  test('keeps one counter per repo and puts every key under the prefix and the repo hash tag', async ({
    locks,
    keys: keysOf,
    prefix,
  }) => {
    const l = locks();
    expect(await l.acquire(REPO, ['a.ts'], { opId: 'op1' })).toMatchObject({ token: 1 });
    expect(await l.acquire(REPO, ['b.ts'], { opId: 'op2' })).toMatchObject({ token: 2 });
    expect(await l.acquire('acme/other', ['a.ts'], { opId: 'op3' })).toMatchObject({ token: 1 });
    const keys = await keysOf(`${prefix}:*`);
    expect(keys.length).toBeGreaterThanOrEqual(8);
    for (const key of keys) expect(key).toMatch(new RegExp(`^${prefix}:\\{acme/(widgets|other)\\}:`));
  });

  test('frees a lock when its lease runs out, and the next grant gets a higher token', async ({ locks }) => {
    const l = locks();
    const first = await l.acquire(REPO, ['a.ts'], { opId: 'op1' }, SHORT_LEASE_MS);
    expect((await l.acquire(REPO, ['a.ts'], { opId: 'op2' }, SHORT_LEASE_MS)).ok).toBe(false);
    await leasesRunOut(l);
    const second = await l.acquire(REPO, ['a.ts'], { opId: 'op2' }, 1000);
    expect(second.ok && first.ok && second.token > first.token).toBe(true);
  });

  test('keeps owner ids with spaces and digits intact through the stored lock value', async ({ locks }) => {
    const l = locks();
    const opId = '12 34 op with spaces';
    await l.acquire(REPO, ['a.ts'], { opId });
    expect(await l.acquire(REPO, ['a.ts'], { opId: '12 34 op' })).toMatchObject({
      ok: false,
      heldBy: [{ path: 'a.ts', opId }],
    });
    expect(await l.holders(REPO)).toMatchObject([{ path: 'a.ts', opId, token: 1 }]);
    expect(await l.renew(REPO, '34 op with spaces')).toEqual({ renewed: [], lost: [] });
    expect(await l.release(REPO, '12 34 op')).toEqual([]);
    expect(await l.release(REPO, opId)).toEqual(['a.ts']);
  });

  test('refuses bad input with validation errors', async ({ locks, connect }) => {
    const l = locks();
    await expectError(l.acquire('not a repo', ['a.ts'], { opId: 'op1' }), 'validation_failed');
    await expectError(l.acquire('acme/{x}', ['a.ts'], { opId: 'op1' }), 'validation_failed');
    await expectError(l.acquire(REPO, [], { opId: 'op1' }), 'validation_failed');
    await expectError(l.acquire(REPO, [''], { opId: 'op1' }), 'validation_failed');
    await expectError(l.acquire(REPO, ['a.ts'], { opId: '' }), 'validation_failed');
    await expectError(l.acquire(REPO, ['a.ts'], { opId: 'op1' }, 0), 'validation_failed');
    await expectError(l.acquire(REPO, ['a.ts'], { opId: 'op1' }, 1.5), 'validation_failed');
    expect(() => new FileLocks(connect(), { prefix: 'p{x}' })).toThrow(PullwrightError);
    expect(await l.holders(REPO)).toEqual([]);
  });
});

describe('FileLocks.renew', () => {
  test('extends the owner’s locks to the new lease', async ({ locks }) => {
    const l = locks();
    // Long enough that no stall between acquire and renew lets it run out; the renewal's
    // 60 s are what the holders must show, far above it.
    await l.acquire(REPO, ['a.ts', 'b.ts'], { opId: 'op1' }, 10_000);
    expect(await l.renew(REPO, 'op1', 60_000)).toEqual({ renewed: ['a.ts', 'b.ts'], lost: [] });
    const holders = await l.holders(REPO);
    expect(holders.map((h) => h.opId)).toEqual(['op1', 'op1']);
    expect(holders[0]!.expiresInMs).toBeGreaterThan(50_000);
  });

  test('reports a lock taken over after expiry as lost and never extends the new holder’s lease', async ({ locks }) => {
    const l = locks();
    await l.acquire(REPO, ['a.ts', 'b.ts'], { opId: 'op1' }, SHORT_LEASE_MS);
    await leasesRunOut(l);
    await l.acquire(REPO, ['a.ts'], { opId: 'op2' }, 500);
    expect(await l.renew(REPO, 'op1', 60_000)).toEqual({ renewed: [], lost: ['a.ts', 'b.ts'] });
    const [holder] = await l.holders(REPO);
    expect(holder).toMatchObject({ path: 'a.ts', opId: 'op2' });
    expect(holder!.expiresInMs).toBeLessThanOrEqual(500);
    // A second renewal has nothing left to report.
    expect(await l.renew(REPO, 'op1', 60_000)).toEqual({ renewed: [], lost: [] });
  });
});

describe('FileLocks.release', () => {
  test('frees the owner’s locks and returns them', async ({ locks }) => {
    const l = locks();
    await l.acquire(REPO, ['a.ts', 'b.ts'], { opId: 'op1' });
    await l.acquire(REPO, ['c.ts'], { opId: 'op2' });
    expect(await l.release(REPO, 'op1')).toEqual(['a.ts', 'b.ts']);
    expect((await l.holders(REPO)).map((h) => h.path)).toEqual(['c.ts']);
    expect(await l.release(REPO, 'op1')).toEqual([]);
  });

  test('never deletes a lock that another operation took after the lease ran out', async ({ locks }) => {
    const l = locks();
    await l.acquire(REPO, ['a.ts', 'b.ts'], { opId: 'op1' }, SHORT_LEASE_MS);
    await leasesRunOut(l);
    const taken = await l.acquire(REPO, ['a.ts'], { opId: 'op2' });
    expect(await l.release(REPO, 'op1')).toEqual([]);
    const [holder] = await l.holders(REPO);
    expect(holder).toMatchObject({ path: 'a.ts', opId: 'op2', token: taken.ok ? taken.token : -1 });
  });
});

describe('FileLocks.holders', () => {
  test('lists live locks of all operations and forgets dead ones', async ({ locks, connect, prefix }) => {
    const l = locks();
    const redis = connect();
    await l.acquire(REPO, ['z.ts'], { opId: 'live' });
    await l.acquire(REPO, ['a.ts'], { opId: 'dead' }, SHORT_LEASE_MS);
    await l.acquire('acme/other', ['x.ts'], { opId: 'elsewhere' });
    // Past the lease and the owner index's second lease (2 × lease), the dead owner is forgotten.
    // A listing is what forgets it: each probe lists, then reads the index.
    await eventually(
      'the dead owner has left the index',
      async () => {
        await l.holders(REPO);
        return (await redis.smembers(`${prefix}:{${REPO}}:ops`)).length === 1;
      },
      { intervalMs: 20 },
    );
    expect((await l.holders(REPO)).map((h) => [h.path, h.opId])).toEqual([['z.ts', 'live']]);
    expect(await redis.smembers(`${prefix}:{${REPO}}:ops`)).toEqual(['live']);
  });
});

describe('FileLocks.waitFor', () => {
  test('returns at once when the paths are free', async ({ locks }) => {
    const l = locks();
    await l.acquire(REPO, ['other.ts'], { opId: 'op1' });
    await l.waitFor(REPO, ['a.ts'], { timeoutMs: 50 });
  });

  test('wakes on the release message, long before the next poll', async ({ locks, connect, prefix }) => {
    const holder = locks();
    const waiter = locks({ pollMs: LONG_POLL_MS });
    await holder.acquire(REPO, ['a.ts', 'b.ts'], { opId: 'op1' });
    const started = performance.now();
    const waiting = waiter.waitFor(REPO, ['b.ts'], { timeoutMs: LONG_POLL_MS });
    await untilSubscribed(connect(), prefix, REPO, 1);
    await holder.release(REPO, 'op1');
    await waiting;
    // Only the message can have woken it: the poll and the timeout are both LONG_POLL_MS away.
    expect(performance.now() - started).toBeLessThan(LONG_POLL_MS / 2);
  });

  test('wakes when the blocking lease runs out, with no message sent', async ({ locks }) => {
    const holder = locks();
    const waiter = locks({ pollMs: LONG_POLL_MS });
    const sent = performance.now();
    await holder.acquire(REPO, ['a.ts'], { opId: 'dead' }, SHORT_LEASE_MS);
    await waiter.waitFor(REPO, ['a.ts'], { timeoutMs: LONG_POLL_MS });
    const waited = performance.now() - sent;
    // Not before the lease ran out (Redis started it after we sent the acquire; 1 ms for its
    // clock's rounding), and long before the poll or the timeout could have ended the wait.
    expect(waited).toBeGreaterThanOrEqual(SHORT_LEASE_MS - 1);
    expect(waited).toBeLessThan(LONG_POLL_MS / 2);
  });

  test('falls back to polling when the release message is missed', async ({ locks, connect, prefix }) => {
    const holder = locks();
    const waiter = locks({ pollMs: 100 });
    const redis = connect();
    await holder.acquire(REPO, ['a.ts'], { opId: 'op1' });
    const waiting = waiter.waitFor(REPO, ['a.ts'], { timeoutMs: LONG_POLL_MS });
    await untilSubscribed(redis, prefix, REPO, 1);
    // Freed without a PUBLISH, as when the message is lost during a reconnect: only a poll
    // (every 100 ms) can notice before the LONG_POLL_MS timeout fails the wait.
    await redis.del(`${prefix}:{${REPO}}:file:a.ts`);
    await waiting;
  });

  test('times out with a conflict naming the holder', async ({ locks }) => {
    const l = locks({ pollMs: 20 });
    await l.acquire(REPO, ['a.ts'], { opId: 'op1' });
    const err = await expectError(l.waitFor(REPO, ['a.ts'], { timeoutMs: 80 }), 'conflict');
    expect(err).toBeInstanceOf(LockWaitError);
    expect((err as LockWaitError).context).toMatchObject({
      repo: REPO,
      paths: ['a.ts'],
      reason: 'timeout',
      heldBy: [{ path: 'a.ts', opId: 'op1' }],
    });
  });

  test('stops on abort with cancelled', async ({ locks, connect, prefix }) => {
    const l = locks({ pollMs: LONG_POLL_MS });
    await l.acquire(REPO, ['a.ts'], { opId: 'op1' });
    const controller = new AbortController();
    const waiting = l.waitFor(REPO, ['a.ts'], { signal: controller.signal });
    // Subscribed, its first probe may still be in flight: an abort then must end the wait
    // too (it once waited for the next poll).
    await untilSubscribed(connect(), prefix, REPO, 1);
    const started = performance.now();
    controller.abort();
    const err = await expectError(waiting, 'cancelled');
    expect((err as LockWaitError).context.reason).toBe('aborted');
    // The abort ended it, not the next poll.
    expect(performance.now() - started).toBeLessThan(LONG_POLL_MS / 2);
    await expectError(l.waitFor(REPO, ['a.ts'], { signal: controller.signal }), 'cancelled');
  });

  test('wakes several waiters on one channel and lets exactly one win the acquire', async ({
    locks,
    connect,
    prefix,
  }) => {
    const holder = locks();
    const waiters = [1, 2, 3].map(() => locks({ pollMs: LONG_POLL_MS }));
    await holder.acquire(REPO, ['a.ts'], { opId: 'op0' });
    // All three wake on the one release message (the poll is far away)…
    const waiting = waiters.map((w) => w.waitFor(REPO, ['a.ts'], { timeoutMs: LONG_POLL_MS }));
    await untilSubscribed(connect(), prefix, REPO, waiters.length);
    await holder.release(REPO, 'op0');
    await Promise.all(waiting);
    // …and then race for the lock: exactly one wins. (Acquiring inside each wait would let the
    // first winner hold the lock before a slower waiter's probe, which then waits on: on a
    // Cluster, where the release reaches the waiters at different times, it did.)
    const results = await Promise.all(waiters.map((w, i) => w.acquire(REPO, ['a.ts'], { opId: `op${i + 1}` })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });
});

describe('FileLocks.keep', () => {
  test('renews while the job lives and stops on release', async ({ locks }) => {
    const l = locks();
    await l.acquire(REPO, ['a.ts'], { opId: 'op1' }, KEPT_LEASE_MS);
    const lost: string[][] = [];
    const keeper = l.keep(REPO, 'op1', { leaseMs: KEPT_LEASE_MS, onLost: (paths) => lost.push(paths) });
    // Outlive the lease it was acquired with: only renewals can have kept it.
    await sleep(KEPT_LEASE_MS * 1.5);
    expect((await l.holders(REPO)).map((h) => h.opId)).toEqual(['op1']);
    expect(keeper.isValid()).toBe(true);
    expect(lost).toEqual([]);
    await l.release(REPO, 'op1');
    // Stopped, its timers are cleared (LeaseKeeper's tests show no callback comes after).
    expect(keeper.running).toBe(false);
  });

  test('reports a lock that stopped being ours', async ({ locks, connect, prefix }) => {
    const l = locks();
    const redis = connect();
    await l.acquire(REPO, ['a.ts', 'b.ts'], { opId: 'op1' }, KEPT_LEASE_MS);
    const { lost, onLost, first } = lostReports();
    const keeper = l.keep(REPO, 'op1', { leaseMs: KEPT_LEASE_MS, onLost });
    await redis.del(`${prefix}:{${REPO}}:file:a.ts`);
    await l.acquire(REPO, ['a.ts'], { opId: 'op2' });
    // The next renewal (within a third of the lease) finds a.ts taken.
    await first;
    expect(lost).toEqual([['a.ts']]);
    expect(keeper.running).toBe(true);
    await l.close();
    expect(keeper.running).toBe(false);
  });
});
