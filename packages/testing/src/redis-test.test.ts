import { describe, expect } from 'vitest';
import { redisTest } from './redis-test.ts';

let previous: string | undefined;

// Runs in order: the second test sees what the first left behind.
describe('redisTest', () => {
  redisTest('gives each test its own prefix and a live connection', async ({ redis, prefix }) => {
    await redis.set(`${prefix}:x`, '1');
    // BullMQ's keys put the prefix in a hash tag.
    await redis.set(`{${prefix}}:bull:y`, '1');
    expect(await redis.get(`${prefix}:x`)).toBe('1');
    previous = prefix;
  });

  redisTest('deletes every key the test before wrote under its prefix', async ({ redis, prefix }) => {
    expect(prefix).not.toBe(previous);
    expect(await redis.keys(`*${previous}*`)).toEqual([]);
  });
});
