import { redisTest } from '@pullwright/testing';
import { describe, expect } from 'vitest';
import { CodeQueue } from './code-queue.ts';
import { OperationEvents } from './operation-events.ts';
import { OperationStore } from './operation-store.ts';
import { RedisKeys } from './redis-keys.ts';
import { TEST_OPERATION as input } from './test-operation.ts';

const test = redisTest.extend<{ keys: RedisKeys; store: OperationStore; events: OperationEvents }>({
  keys: async ({ prefix }, use) => use(new RedisKeys(prefix)),
  store: async ({ redis, keys }, use) => use(new OperationStore(redis, keys)),
  events: async ({ redis, keys }, use) => use(new OperationEvents(redis, keys)),
});

describe('OperationStore', () => {
  test('creates a queued operation with a created event', async ({ store, events }) => {
    const op = await store.create(input);
    expect(op).toMatchObject({ status: 'queued', version: 0, context: {} });
    expect(op.id).toMatch(/^[a-z0-9]{12,}$/);
    expect(await store.get(op.id)).toEqual(op);
    const [created] = await events.list(op.id);
    expect(created).toMatchObject({ type: 'created', data: { status: 'queued', repo: 'acme/app' } });
  });

  test('records every transition as an event in the same write', async ({ store, events }) => {
    const op = await store.create(input);
    await store.transition(op.id, 'running');
    const failed = await store.end(op.id, { code: 'checks_failed', detail: 'tests failed' });
    expect(failed.version).toBe(2);
    const types = (await events.list(op.id)).map((e) => [e.type, e.data.to ?? null, e.data.reason ?? null]);
    expect(types).toEqual([
      ['created', null, null],
      ['status', 'running', null],
      ['status', 'failed', 'checks failed: tests failed'],
    ]);
  });

  test('refuses an invalid transition and writes nothing', async ({ store, events }) => {
    const op = await store.create(input);
    await expect(store.end(op.id, { code: 'merged' })).rejects.toMatchObject({ code: 'invalid_transition' });
    expect((await store.get(op.id)).version).toBe(0);
    expect(await events.list(op.id)).toHaveLength(1);
  });

  test('never loses a concurrent update (optimistic versions)', async ({ store }) => {
    const op = await store.create(input);
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        store.update(op.id, (cur) => ({ ...cur, filesChanged: [...cur.filesChanged, `f${i}`] }), {
          type: 'checkpoint',
          data: { step: 'test' },
        }),
      ),
    );
    const final = await store.get(op.id);
    expect(final.filesChanged).toHaveLength(25);
    expect(final.version).toBe(25);
  });

  test('lets exactly one of two racing transitions from the same status win', async ({ store }) => {
    const op = await store.create(input);
    const results = await Promise.allSettled([
      store.transition(op.id, 'running'),
      store.end(op.id, { code: 'requested', detail: 'stop' }),
    ]);
    const final = await store.get(op.id);
    // Both may apply in sequence (queued→running→cancelled is legal), but never a lost write.
    expect(final.version).toBe(results.filter((r) => r.status === 'fulfilled').length);
    expect(['running', 'cancelled']).toContain(final.status);
  });

  test('createOnce returns the first operation for a repeated key', async ({ store }) => {
    const [a, b] = await Promise.all([store.createOnce('k1', input), store.createOnce('k1', input)]);
    expect(a.op.id).toBe(b.op.id);
    expect([a.created, b.created].sort()).toEqual([false, true]);
    expect(await store.list()).toHaveLength(1);
  });

  test('lists newest first with status and repo filters', async ({ store }) => {
    const first = await store.create(input, new Date('2026-01-01T00:00:00Z'));
    const second = await store.create({ ...input, repo: 'acme/other' }, new Date('2026-01-02T00:00:00Z'));
    await store.end(first.id, { code: 'requested' });
    expect((await store.list()).map((o) => o.id)).toEqual([second.id, first.id]);
    expect((await store.list({ status: 'cancelled' })).map((o) => o.id)).toEqual([first.id]);
    expect((await store.list({ repo: 'acme/other' })).map((o) => o.id)).toEqual([second.id]);
    expect(await store.list({ limit: 1 })).toHaveLength(1);
  });

  test('404s an unknown id', async ({ store }) => {
    await expect(store.get('nope12345678')).rejects.toMatchObject({ code: 'not_found' });
  });

  test('scrubs event data before it is stored', async ({ redis, keys }) => {
    const scrubbing = new OperationStore(redis, keys, (v) =>
      JSON.parse(JSON.stringify(v).replaceAll('s3cret-value', '[x]')),
    );
    const op = await scrubbing.create(input);
    await scrubbing.transition(op.id, 'running');
    await scrubbing.end(op.id, { code: 'internal', detail: 'leaked s3cret-value' });
    const raw = JSON.stringify(await redis.xrange(keys.events(op.id), '-', '+'));
    expect(raw).not.toContain('s3cret-value');
  });
});

describe('CodeQueue', () => {
  test('enqueuing the same operation twice is a no-op', async ({ redis, prefix }) => {
    const queue = new CodeQueue(redis, prefix);
    try {
      await queue.add('run', { opId: 'abc123def456' });
      await queue.add('run', { opId: 'abc123def456' });
      expect(await queue.queue.getJobCountByTypes('waiting', 'prioritized')).toBe(1);
      await expect(queue.add('run', { opId: '' })).rejects.toMatchObject({ code: 'validation_failed' });
      expect(await queue.removeWaiting('abc123def456')).toBe(true);
      expect(await queue.queue.getJobCountByTypes('waiting', 'prioritized')).toBe(0);
    } finally {
      await queue.queue.obliterate({ force: true });
      await queue.close();
    }
  });

  test('the oldest waiting job is found among prioritized runs, whatever their priority', async ({ redis, prefix }) => {
    const queue = new CodeQueue(redis, prefix);
    try {
      await queue.add('run', { opId: 'lowfirst01', priority: 'low' });
      // A later millisecond for the critical job, so "oldest" has one answer.
      const added = Date.now();
      while (Date.now() === added) await new Promise((r) => setImmediate(r));
      await queue.add('run', { opId: 'critical01', priority: 'critical' });
      const [next] = await queue.queue.getJobs(['prioritized'], 0, 0, true);
      expect(next?.id).toBe('critical01');
      expect((await queue.oldestWaiting())?.id).toBe('lowfirst01');
    } finally {
      await queue.queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
