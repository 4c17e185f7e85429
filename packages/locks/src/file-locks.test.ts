import { setTimeout as sleep } from 'node:timers/promises';
import { PullwrightError } from '@pullwright/core';
import { afterEach, describe, expect, it } from 'vitest';
import { FileLocks } from './file-locks.ts';
import { LockWaitError } from './lock-wait-error.ts';
import { testRedis } from './test-redis.ts';

const t = testRedis();
const REPO = 'acme/widgets';
const open: FileLocks[] = [];

function locks(options: { pollMs?: number; defaultLeaseMs?: number } = {}): FileLocks {
  const instance = new FileLocks(t.connect(), { prefix: t.prefix, ...options });
  open.push(instance);
  return instance;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
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
  it('grants every path, sorted and de-duplicated, with a fencing token', async () => {
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

  it('is all or nothing and names every path held by someone else', async () => {
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

  it('lets exactly one of many racing clients win an overlapping set', async () => {
    const clients = Array.from({ length: 10 }, () => locks());
    const results = await Promise.all(
      clients.map((l, i) => l.acquire(REPO, [`own-${i}.ts`, 'shared.ts'], { opId: `op${i}` })),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    // Losers left nothing behind: only the winner's two files are locked.
    expect(await clients[0]!.holders(REPO)).toHaveLength(2);
  });

  it('re-grants paths the owner already holds with a higher token and the original since', async () => {
    const l = locks();
    await l.acquire(REPO, ['a.ts'], { opId: 'op1' });
    const before = await l.holders(REPO);
    await sleep(5);
    const again = await l.acquire(REPO, ['a.ts', 'b.ts'], { opId: 'op1' });
    expect(again).toEqual({ ok: true, token: 2, paths: ['a.ts', 'b.ts'] });
    const after = await l.holders(REPO);
    expect(after.map((h) => h.token)).toEqual([2, 2]);
    expect(after[0]!.since).toBe(before[0]!.since);
  });

  it('keeps one counter per repo and puts every key under the prefix and the repo hash tag', async () => {
    const l = locks();
    expect(await l.acquire(REPO, ['a.ts'], { opId: 'op1' })).toMatchObject({ token: 1 });
    expect(await l.acquire(REPO, ['b.ts'], { opId: 'op2' })).toMatchObject({ token: 2 });
    expect(await l.acquire('acme/other', ['a.ts'], { opId: 'op3' })).toMatchObject({ token: 1 });
    const keys = await t.keys(`${t.prefix}:*`);
    expect(keys.length).toBeGreaterThanOrEqual(8);
    for (const key of keys) expect(key).toMatch(new RegExp(`^${t.prefix}:\\{acme/(widgets|other)\\}:`));
  });

  it('frees a lock when its lease runs out, and the next grant gets a higher token', async () => {
    const l = locks();
    const first = await l.acquire(REPO, ['a.ts'], { opId: 'op1' }, 100);
    expect((await l.acquire(REPO, ['a.ts'], { opId: 'op2' }, 100)).ok).toBe(false);
    await sleep(130);
    const second = await l.acquire(REPO, ['a.ts'], { opId: 'op2' }, 1000);
    expect(second.ok && first.ok && second.token > first.token).toBe(true);
  });

  it('keeps owner ids with spaces and digits intact through the stored lock value', async () => {
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

  it('refuses bad input with validation errors', async () => {
    const l = locks();
    await expectError(l.acquire('not a repo', ['a.ts'], { opId: 'op1' }), 'validation_failed');
    await expectError(l.acquire('acme/{x}', ['a.ts'], { opId: 'op1' }), 'validation_failed');
    await expectError(l.acquire(REPO, [], { opId: 'op1' }), 'validation_failed');
    await expectError(l.acquire(REPO, [''], { opId: 'op1' }), 'validation_failed');
    await expectError(l.acquire(REPO, ['a.ts'], { opId: '' }), 'validation_failed');
    await expectError(l.acquire(REPO, ['a.ts'], { opId: 'op1' }, 0), 'validation_failed');
    await expectError(l.acquire(REPO, ['a.ts'], { opId: 'op1' }, 1.5), 'validation_failed');
    expect(() => new FileLocks(t.connect(), { prefix: 'p{x}' })).toThrow(PullwrightError);
    expect(await l.holders(REPO)).toEqual([]);
  });
});

describe('FileLocks.renew', () => {
  it('extends the owner’s locks to the new lease', async () => {
    const l = locks();
    await l.acquire(REPO, ['a.ts', 'b.ts'], { opId: 'op1' }, 200);
    expect(await l.renew(REPO, 'op1', 60_000)).toEqual({ renewed: ['a.ts', 'b.ts'], lost: [] });
    await sleep(250);
    const holders = await l.holders(REPO);
    expect(holders.map((h) => h.opId)).toEqual(['op1', 'op1']);
    expect(holders[0]!.expiresInMs).toBeGreaterThan(50_000);
  });

  it('reports a lock taken over after expiry as lost and never extends the new holder’s lease', async () => {
    const l = locks();
    await l.acquire(REPO, ['a.ts', 'b.ts'], { opId: 'op1' }, 100);
    await sleep(130);
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
  it('frees the owner’s locks and returns them', async () => {
    const l = locks();
    await l.acquire(REPO, ['a.ts', 'b.ts'], { opId: 'op1' });
    await l.acquire(REPO, ['c.ts'], { opId: 'op2' });
    expect(await l.release(REPO, 'op1')).toEqual(['a.ts', 'b.ts']);
    expect((await l.holders(REPO)).map((h) => h.path)).toEqual(['c.ts']);
    expect(await l.release(REPO, 'op1')).toEqual([]);
  });

  it('never deletes a lock that another operation took after the lease ran out', async () => {
    const l = locks();
    await l.acquire(REPO, ['a.ts', 'b.ts'], { opId: 'op1' }, 40);
    await sleep(60);
    const taken = await l.acquire(REPO, ['a.ts'], { opId: 'op2' });
    expect(await l.release(REPO, 'op1')).toEqual([]);
    const [holder] = await l.holders(REPO);
    expect(holder).toMatchObject({ path: 'a.ts', opId: 'op2', token: taken.ok ? taken.token : -1 });
  });
});

describe('FileLocks.holders', () => {
  it('lists live locks of all operations and forgets dead ones', async () => {
    const l = locks();
    const redis = t.connect();
    await l.acquire(REPO, ['z.ts'], { opId: 'live' });
    await l.acquire(REPO, ['a.ts'], { opId: 'dead' }, 30);
    await l.acquire('acme/other', ['x.ts'], { opId: 'elsewhere' });
    // Past the lease and the owner index's second lease.
    await sleep(80);
    expect((await l.holders(REPO)).map((h) => [h.path, h.opId])).toEqual([['z.ts', 'live']]);
    expect(await redis.smembers(`${t.prefix}:{${REPO}}:ops`)).toEqual(['live']);
  });
});

describe('FileLocks.waitFor', () => {
  it('returns at once when the paths are free', async () => {
    const l = locks();
    await l.acquire(REPO, ['other.ts'], { opId: 'op1' });
    await l.waitFor(REPO, ['a.ts'], { timeoutMs: 50 });
  });

  it('wakes on the release message, long before the next poll', async () => {
    const holder = locks();
    const waiter = locks({ pollMs: 30_000 });
    await holder.acquire(REPO, ['a.ts', 'b.ts'], { opId: 'op1' });
    const started = performance.now();
    const waiting = waiter.waitFor(REPO, ['b.ts'], { timeoutMs: 10_000 });
    await sleep(50);
    await holder.release(REPO, 'op1');
    await waiting;
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('wakes when the blocking lease runs out, with no message sent', async () => {
    const holder = locks();
    const waiter = locks({ pollMs: 30_000 });
    await holder.acquire(REPO, ['a.ts'], { opId: 'dead' }, 150);
    const started = performance.now();
    await waiter.waitFor(REPO, ['a.ts'], { timeoutMs: 10_000 });
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThan(100);
    expect(waited).toBeLessThan(1000);
  });

  it('falls back to polling when the release message is missed', async () => {
    const holder = locks();
    const waiter = locks({ pollMs: 100 });
    const redis = t.connect();
    await holder.acquire(REPO, ['a.ts'], { opId: 'op1' });
    const waiting = waiter.waitFor(REPO, ['a.ts'], { timeoutMs: 10_000 });
    await sleep(50);
    // Freed without a PUBLISH, as when the message is lost during a reconnect.
    await redis.del(`${t.prefix}:{${REPO}}:file:a.ts`);
    const started = performance.now();
    await waiting;
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('times out with a conflict naming the holder', async () => {
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

  it('stops on abort with cancelled', async () => {
    const l = locks({ pollMs: 30_000 });
    await l.acquire(REPO, ['a.ts'], { opId: 'op1' });
    const controller = new AbortController();
    const waiting = l.waitFor(REPO, ['a.ts'], { signal: controller.signal });
    await sleep(30);
    const started = performance.now();
    controller.abort();
    const err = await expectError(waiting, 'cancelled');
    expect((err as LockWaitError).context.reason).toBe('aborted');
    expect(performance.now() - started).toBeLessThan(500);
    await expectError(l.waitFor(REPO, ['a.ts'], { signal: controller.signal }), 'cancelled');
  });

  it('wakes several waiters on one channel and lets exactly one win the acquire', async () => {
    const holder = locks();
    const waiters = [locks({ pollMs: 30_000 }), locks({ pollMs: 30_000 }), locks({ pollMs: 30_000 })];
    await holder.acquire(REPO, ['a.ts'], { opId: 'op0' });
    // All three wake on the one release message (the poll is 30 s away)…
    const waiting = waiters.map((w) => w.waitFor(REPO, ['a.ts'], { timeoutMs: 5000 }));
    await sleep(50);
    await holder.release(REPO, 'op0');
    await Promise.all(waiting);
    // …and then race for the lock: exactly one wins. (Acquiring inside each wait would let
    // the first winner hold the lock before a slower waiter's probe, as on a Cluster.)
    const results = await Promise.all(waiters.map((w, i) => w.acquire(REPO, ['a.ts'], { opId: `op${i + 1}` })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });
});

describe('FileLocks.keep', () => {
  it('renews while the job lives and stops on release', async () => {
    const l = locks();
    await l.acquire(REPO, ['a.ts'], { opId: 'op1' }, 150);
    const lost: string[][] = [];
    const keeper = l.keep(REPO, 'op1', { leaseMs: 150, onLost: (paths) => lost.push(paths) });
    await sleep(500);
    expect((await l.holders(REPO)).map((h) => h.opId)).toEqual(['op1']);
    expect(keeper.isValid()).toBe(true);
    await l.release(REPO, 'op1');
    expect(keeper.running).toBe(false);
    await sleep(100);
    expect(lost).toEqual([]);
  });

  it('reports a lock that stopped being ours', async () => {
    const l = locks();
    const redis = t.connect();
    await l.acquire(REPO, ['a.ts', 'b.ts'], { opId: 'op1' }, 300);
    const lost: string[][] = [];
    const keeper = l.keep(REPO, 'op1', { leaseMs: 300, onLost: (paths) => lost.push(paths) });
    await sleep(50);
    await redis.del(`${t.prefix}:{${REPO}}:file:a.ts`);
    await l.acquire(REPO, ['a.ts'], { opId: 'op2' });
    await sleep(200);
    expect(lost).toEqual([['a.ts']]);
    expect(keeper.running).toBe(true);
    await l.close();
    expect(keeper.running).toBe(false);
  });
});
