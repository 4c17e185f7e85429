import { describe, expect, it } from 'vitest';
import { answerWithin } from './answer-within.ts';

const after = <T>(ms: number, value: T) => new Promise<T>((r) => setTimeout(() => r(value), ms));

describe('answerWithin', () => {
  it('answers with the result when the work is quick', async () => {
    const late: string[] = [];
    expect(
      await answerWithin(
        after(5, 'done'),
        200,
        'working',
        async (r) => void late.push(r),
        () => undefined,
      ),
    ).toBe('done');
    await after(20, null);
    expect(late).toEqual([]);
  });

  it('answers with the fallback in time and hands the late result on', async () => {
    const late: string[] = [];
    const started = Date.now();
    const answer = await answerWithin(
      after(150, 'done'),
      30,
      'working',
      async (r) => void late.push(r),
      () => undefined,
    );
    expect(answer).toBe('working');
    expect(Date.now() - started).toBeLessThan(120);
    await expect.poll(() => late).toEqual(['done']);
  });

  it('reports a late failure instead of dropping it', async () => {
    const errors: unknown[] = [];
    const work = after(50, null).then(() => {
      throw new Error('redis down');
    });
    expect(
      await answerWithin(
        work,
        10,
        'working',
        async () => undefined,
        (e) => errors.push(e),
      ),
    ).toBe('working');
    await expect.poll(() => errors.map((e) => (e as Error).message)).toEqual(['redis down']);
  });
});
