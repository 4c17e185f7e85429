import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { CONVERSATION_TTL_S, ConversationCheckpoints } from './conversation-checkpoints.ts';
import { RedisKeys } from './redis-keys.ts';

const redis = new Redis(inject('redisUrl'));
afterAll(() => redis.disconnect());

describe('ConversationCheckpoints', () => {
  const keys = new RedisKeys(`t${randomBytes(6).toString('hex')}`);
  const checkpoints = new ConversationCheckpoints(redis, keys, {
    scrub: <T>(v: T) => JSON.parse(JSON.stringify(v).replaceAll('hunter2', '[secret]')) as T,
    maxBytes: 200,
  });

  it('stores one job of one operation under its hash tag, redacted, with an expiry', async () => {
    const run = checkpoints.for('op42', 'run');
    expect(await run.load()).toBeUndefined();
    await run.save({ steps: ['password hunter2'] });
    expect(await run.load()).toEqual({ steps: ['password [secret]'] });
    const key = keys.conversation('op42', 'run');
    expect(key).toMatch(/:op:\{op42\}:conversation:run$/);
    expect(await redis.ttl(key)).toBeGreaterThan(CONVERSATION_TTL_S - 60);
    // Another job of the same operation has its own conversation.
    expect(await checkpoints.for('op42', 'revise:1').load()).toBeUndefined();
  });

  it('keeps the last checkpoint that fitted when one grows past the cap', async () => {
    const run = checkpoints.for('op43', 'run');
    await run.save({ turns: 1 });
    await run.save({ turns: 2, padding: 'x'.repeat(300) });
    expect(await run.load()).toEqual({ turns: 1 });
  });

  it('clears, and reads a value that is not JSON as none', async () => {
    const run = checkpoints.for('op44', 'run');
    await run.save({ turns: 1 });
    await run.clear();
    expect(await run.load()).toBeUndefined();
    await redis.set(keys.conversation('op44', 'run'), '{not json');
    expect(await run.load()).toBeUndefined();
  });
});
