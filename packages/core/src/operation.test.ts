import { describe, expect, it } from 'vitest';
import { isPullwrightError } from './errors.ts';
import { type BudgetContract, decideBudget, emptyUsage, Operation } from './operation.ts';

const NOW = new Date('2026-11-27T12:00:00.000Z');

function operation(contract?: BudgetContract, status: Operation['status'] = 'running'): Operation {
  return Operation.parse({
    id: 'op0123456789',
    type: 'implement',
    repo: 'acme/app',
    baseBranch: 'main',
    description: 'Change the answer',
    context: {},
    requester: { source: 'api', user: 'dev' },
    status,
    version: 3,
    usage: emptyUsage(),
    ...(contract ? { budgetContract: contract } : {}),
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
  });
}

const pending: BudgetContract = {
  extendedUsd: 0.5,
  pause: { state: 'pending', since: NOW.toISOString(), spentUsd: 1.6, limitUsd: 2 },
};

function conflict(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (isPullwrightError(err)) return `${err.code}: ${err.message}`;
    throw err;
  }
  throw new Error('no error');
}

describe('decideBudget', () => {
  it('extend adds the amount to what people extended, and records who', () => {
    const op = decideBudget(operation(pending), { action: 'extend', by: 'mia', amountUsd: 1 }, NOW);
    expect(op.budgetContract).toEqual({
      extendedUsd: 1.5,
      pause: { ...pending.pause, state: 'extended', by: 'mia', at: NOW.toISOString(), amountUsd: 1 },
    });
  });

  it('stop records who stopped it and extends nothing', () => {
    const op = decideBudget(operation(pending), { action: 'stop', by: 'dev' }, NOW);
    expect(op.budgetContract).toMatchObject({ extendedUsd: 0.5, pause: { state: 'stopped', by: 'dev' } });
  });

  it.each([
    ['no pause', operation(), /is not paused at its budget \(running\)/],
    ['an ended operation', operation(pending, 'failed'), /is not paused at its budget \(failed\)/],
    [
      'a pause already decided',
      decideBudget(operation(pending), { action: 'stop', by: 'dev' }, NOW),
      /already stopped by dev/,
    ],
  ])('%s is a conflict', (_what, op, message) => {
    expect(conflict(() => decideBudget(op, { action: 'extend', by: 'mia', amountUsd: 1 }))).toMatch(
      new RegExp(`^conflict: .*${message.source}`),
    );
  });

  it('an extend without a positive amount is refused', () => {
    expect(conflict(() => decideBudget(operation(pending), { action: 'extend', by: 'mia', amountUsd: 0 }))).toMatch(
      /^validation_failed: extending the budget needs an amount above 0/,
    );
  });
});
