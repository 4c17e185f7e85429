import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { FileLocks } from './file-locks.ts';
import { LockWaitError } from './lock-wait-error.ts';
import { LockWaiter } from './lock-waiter.ts';
import { MergeLock } from './merge-lock.ts';
import { testRedis } from './test-redis.ts';

const t = testRedis();
const REPO = 'acme/widgets';
const open: Array<{ close(): Promise<void> }> = [];

function mergeLock(options: { pollMs?: number } = {}): MergeLock {
  const lock = new MergeLock(t.connect(), { prefix: t.prefix, ...options });
  open.push(lock);
  return lock;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

describe('MergeLock', () => {
  it('grants one holder per repo with a fencing token and refuses others', async () => {
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

  it('lets exactly one of many racing clients win', async () => {
    const locks = Array.from({ length: 8 }, () => mergeLock());
    const results = await Promise.all(locks.map((l, i) => l.acquire(REPO, { opId: `op${i}` })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it('re-grants to the same operation with a higher token and shares the repo counter with file locks', async () => {
    const lock = mergeLock();
    const files = new FileLocks(t.connect(), { prefix: t.prefix });
    open.push(files);
    await lock.acquire(REPO, { opId: 'op1' });
    expect(await files.acquire(REPO, ['a.ts'], { opId: 'op9' })).toMatchObject({ token: 2 });
    expect(await lock.acquire(REPO, { opId: 'op1' })).toEqual({ ok: true, token: 3 });
  });

  it('renews and releases only for the owner', async () => {
    const lock = mergeLock();
    await lock.acquire(REPO, { opId: 'op1' }, 200);
    expect(await lock.renew(REPO, 'op2', 60_000)).toBe(false);
    expect(await lock.release(REPO, 'op2')).toBe(false);
    expect(await lock.renew(REPO, 'op1', 60_000)).toBe(true);
    expect((await lock.holder(REPO))!.expiresInMs).toBeGreaterThan(50_000);
    expect(await lock.release(REPO, 'op1')).toBe(true);
    expect(await lock.holder(REPO)).toBeNull();
    expect(await lock.release(REPO, 'op1')).toBe(false);
  });

  it('expires, and a late release of the old owner leaves the new holder alone', async () => {
    const lock = mergeLock();
    await lock.acquire(REPO, { opId: 'op1' }, 40);
    await sleep(60);
    expect(await lock.renew(REPO, 'op1')).toBe(false);
    const second = await lock.acquire(REPO, { opId: 'op2' });
    expect(second).toEqual({ ok: true, token: 2 });
    expect(await lock.release(REPO, 'op1')).toBe(false);
    expect(await lock.holder(REPO)).toMatchObject({ opId: 'op2', token: 2 });
  });

  it('waits for a release through a waiter shared with FileLocks', async () => {
    const redis = t.connect();
    const waiter = new LockWaiter(redis, { pollMs: 30_000 });
    open.push(waiter);
    const holder = mergeLock();
    const waiting = new MergeLock(redis, { prefix: t.prefix, waiter });
    const files = new FileLocks(redis, { prefix: t.prefix, waiter });
    await holder.acquire(REPO, { opId: 'op1' });
    await files.acquire(REPO, ['a.ts'], { opId: 'op1' });
    const started = performance.now();
    const mergeFree = waiting.waitFor(REPO, { timeoutMs: 10_000 });
    const fileFree = files.waitFor(REPO, ['a.ts'], { timeoutMs: 10_000 });
    await sleep(50);
    await holder.release(REPO, 'op1');
    await mergeFree;
    await files.release(REPO, 'op1');
    await fileFree;
    expect(performance.now() - started).toBeLessThan(1000);
    // Closing the lock classes leaves a shared waiter open for its owner.
    await waiting.close();
    await files.close();
    await holder.acquire(REPO, { opId: 'op2' }, 100);
    await waiting.waitFor(REPO, { timeoutMs: 5000 });
  });

  it('times out naming the holder', async () => {
    const lock = mergeLock({ pollMs: 20 });
    await lock.acquire(REPO, { opId: 'op1' });
    const err = await lock.waitFor(REPO, { timeoutMs: 60 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockWaitError);
    expect((err as LockWaitError).code).toBe('conflict');
    expect((err as LockWaitError).context.heldBy).toMatchObject([{ path: 'merge', opId: 'op1' }]);
  });

  it('keeps the lease while the merge runs and stops on release', async () => {
    const lock = mergeLock();
    await lock.acquire(REPO, { opId: 'op1' }, 120);
    const lost: string[][] = [];
    const keeper = lock.keep(REPO, 'op1', { leaseMs: 120, onLost: (l) => lost.push(l) });
    await sleep(400);
    expect(await lock.holder(REPO)).toMatchObject({ opId: 'op1' });
    await lock.release(REPO, 'op1');
    expect(keeper.running).toBe(false);
    await sleep(100);
    expect(lost).toEqual([]);
  });

  it('reports the merge lock lost when it was taken away', async () => {
    const lock = mergeLock();
    const redis = t.connect();
    await lock.acquire(REPO, { opId: 'op1' }, 90);
    const lost: string[][] = [];
    const keeper = lock.keep(REPO, 'op1', { leaseMs: 90, onLost: (l) => lost.push(l) });
    await sleep(10);
    await redis.del(`${t.prefix}:{${REPO}}:merge`);
    await lock.acquire(REPO, { opId: 'op2' });
    await sleep(80);
    expect(lost).toEqual([['merge']]);
    expect(keeper.running).toBe(false);
  });
});
