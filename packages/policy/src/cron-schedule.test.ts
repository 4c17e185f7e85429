import { describe, expect, it } from 'vitest';
import { CronSchedule } from './cron-schedule.ts';
import { RepoPolicyFile } from './policy-schema.ts';

const MONDAY_NOON = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('CronSchedule', () => {
  it.each([
    ['0 3 * * *', undefined],
    ['*/5 * * * * *', undefined],
    ['0 9 * * MON', undefined],
    ['* * * *', 'must have 5 fields'],
    ['* * * * * * *', 'must have 5 fields'],
    ['61 * * * *', 'is not a cron expression'],
    ['0 3 * * FUNDAY', 'is not a cron expression'],
  ])('%s', (expression, problem) => {
    const found = CronSchedule.problem(expression);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });

  it('next runs are in UTC, and the shortest gap is what the expression means', () => {
    expect(CronSchedule.parse('0 3 * * *').next(MONDAY_NOON, 2)).toEqual([
      Date.UTC(2026, 10, 24, 3),
      Date.UTC(2026, 10, 25, 3),
    ]);
    expect(CronSchedule.parse('*/5 * * * * *').shortestGapMs(MONDAY_NOON)).toBe(5000);
    expect(CronSchedule.parse('0,1 * * * *').shortestGapMs(MONDAY_NOON)).toBe(60_000);
    expect(CronSchedule.parse('0 9 * * MON').shortestGapMs(MONDAY_NOON)).toBe(7 * 24 * 3600_000);
  });

  it('a schedules entry names the field it is wrong in', () => {
    const parsed = RepoPolicyFile.safeParse({
      schedules: {
        Nightly: { cron: '0 3 * * *', type: 'fix', description: 'x' },
        ok: { cron: 'soon', type: 'fix', description: 'x' },
      },
    });
    expect(parsed.success).toBe(false);
    const fields = parsed.error?.issues.map((i) => i.path.join('.'));
    expect(fields).toEqual(expect.arrayContaining(['schedules.Nightly', 'schedules.ok.cron']));
  });
});
