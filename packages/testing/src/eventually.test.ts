import { describe, expect, it } from 'vitest';
import { eventually } from './eventually.ts';

describe('eventually', () => {
  it('returns the first value the probe gives, polling until then', async () => {
    let calls = 0;
    const value = await eventually('the third call', () => (++calls >= 3 ? { calls } : undefined), { intervalMs: 1 });
    expect(value).toEqual({ calls: 3 });
  });

  it('names what it waited for, with the last state, when the condition never comes true', async () => {
    let state = 'queued';
    const waiting = eventually(
      () => `the operation is done (still ${state})`,
      async () => {
        state = 'running';
        return false;
      },
      { timeoutMs: 50, intervalMs: 5 },
    );
    await expect(waiting).rejects.toThrow(
      /^timed out after \d+ ms waiting until the operation is done \(still running\)$/,
    );
  });

  it('lets an error the probe throws end the wait at once', async () => {
    await expect(
      eventually('never', () => {
        throw new Error('the store is gone');
      }),
    ).rejects.toThrow('the store is gone');
  });
});
