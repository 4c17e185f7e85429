import cronParser from 'cron-parser';

/**
 * A cron expression as BullMQ's job schedulers read it (cron-parser, the parser BullMQ uses):
 * five fields, or six with seconds first. UTC, so a schedule means the same on every host.
 */
export class CronSchedule {
  private constructor(readonly expression: string) {}

  /** The reason an expression is refused, or undefined when it parses. */
  static problem(expression: string): string | undefined {
    const fields = expression.trim().split(/\s+/).length;
    if (fields < 5 || fields > 6) return 'must have 5 fields (minute hour day month weekday) or 6 with seconds first';
    try {
      cronParser.parseExpression(expression, { utc: true });
      return undefined;
    } catch (err) {
      return `is not a cron expression: ${(err as Error).message}`;
    }
  }

  static parse(expression: string): CronSchedule {
    const problem = CronSchedule.problem(expression);
    if (problem) throw new Error(`cron ${problem}`);
    return new CronSchedule(expression);
  }

  /** The first `count` run times strictly after `after` (epoch ms). */
  next(after: number, count = 1): number[] {
    const it = cronParser.parseExpression(this.expression, { utc: true, currentDate: new Date(after) });
    return Array.from({ length: count }, () => it.next().getTime());
  }

  /**
   * The shortest gap between two runs within the next `sample` runs (the first run after
   * `after` is skipped: its gap to `after` is not one the schedule keeps). What a
   * minimum-interval rule compares.
   */
  shortestGapMs(after: number, sample = 20): number {
    const times = [after, ...this.next(after, sample)];
    let gap = Number.POSITIVE_INFINITY;
    for (let i = 2; i < times.length; i++) gap = Math.min(gap, times[i]! - times[i - 1]!);
    return gap;
  }
}
