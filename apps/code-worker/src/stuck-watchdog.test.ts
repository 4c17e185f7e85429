import { OperationEvents, OperationStore, RedisKeys } from '@pullwright/queue';
import { redisTest } from '@pullwright/testing';
import { describe, expect } from 'vitest';
import { StuckWatchdog } from './stuck-watchdog.ts';
import { TEST_OPERATION } from './test-operation.ts';

describe('StuckWatchdog', () => {
  redisTest(
    'reports a running step that went quiet, once, and clears the report on the next event',
    async ({ redis, prefix }) => {
      const keys = new RedisKeys(prefix);
      const store = new OperationStore(redis, keys);
      const events = new OperationEvents(redis, keys);
      const op = await store.create(TEST_OPERATION);
      await store.transition(op.id, 'running');
      await events.append(op.id, 'step', { step: 'verify', state: 'started' });
      let now = Date.now();
      const watchdog = new StuckWatchdog({ redis, keys, store, stuckAfterMs: 60_000, now: () => now });
      watchdog.track(op.id);

      expect(await watchdog.check()).toEqual([]);
      now += 61_000;
      expect(await watchdog.check()).toEqual([op.id]);
      const stuck = await store.get(op.id);
      expect(stuck.stuck).toMatchObject({ step: 'verify' });
      expect(stuck.stuck!.idleMs).toBeGreaterThanOrEqual(60_000);
      // Its own report is not progress, and one silence is reported once.
      now += 61_000;
      expect(await watchdog.check()).toEqual([]);
      const types = (await events.list(op.id)).map((e) => e.type);
      expect(types.filter((t) => t === 'stuck')).toHaveLength(1);

      await new Promise((r) => setTimeout(r, 5));
      await events.append(op.id, 'check', { name: 'test', passed: true, exitCode: 0, durationMs: 5 });
      expect(await watchdog.check()).toEqual([]);
      expect((await store.get(op.id)).stuck).toBeUndefined();
      expect((await events.list(op.id)).at(-1)?.type).toBe('unstuck');
    },
  );

  redisTest("leaves an operation that waits for another one's locks alone", async ({ redis, prefix }) => {
    const keys = new RedisKeys(prefix);
    const store = new OperationStore(redis, keys);
    const op = await store.create({ ...TEST_OPERATION, type: 'fix', description: 'y' });
    await store.transition(op.id, 'running', {
      waiting: { files: ['src/a.ts'], holder: 'other', since: new Date().toISOString() },
    });
    const watchdog = new StuckWatchdog({ redis, keys, store, stuckAfterMs: 1000, now: () => Date.now() + 3_600_000 });
    watchdog.track(op.id);
    expect(await watchdog.check()).toEqual([]);
  });

  redisTest('leaves an operation paused at its budget alone: it waits for a person', async ({ redis, prefix }) => {
    const keys = new RedisKeys(prefix);
    const store = new OperationStore(redis, keys);
    const events = new OperationEvents(redis, keys);
    const op = await store.create({ ...TEST_OPERATION, type: 'fix', description: 'z' });
    const pause = { state: 'pending' as const, since: new Date().toISOString(), spentUsd: 1.6, limitUsd: 2 };
    await store.transition(op.id, 'running', { budgetContract: { extendedUsd: 0, pause } });
    await events.append(op.id, 'step', { step: 'agent', state: 'started' });
    const watchdog = new StuckWatchdog({ redis, keys, store, stuckAfterMs: 1000, now: () => Date.now() + 3_600_000 });
    watchdog.track(op.id);
    expect(await watchdog.check()).toEqual([]);
    expect((await store.get(op.id)).stuck).toBeUndefined();
  });
});
