import { describe, expect, it } from 'vitest';
import { emptyUsage, OPERATION_STATUSES, type Operation, type OperationStatus } from './operation.ts';
import type { Outcome } from './outcome.ts';
import { canTransition, InvalidTransitionError, TRANSITIONS, transition } from './state-machine.ts';

function op(status: OperationStatus): Operation {
  return {
    id: 'abc123def456',
    type: 'debug',
    repo: 'acme/app',
    baseBranch: 'main',
    description: 'x',
    context: {},
    requester: { source: 'api', user: 'u' },
    priority: 'medium',
    targetFiles: [],
    status,
    version: 3,
    filesChanged: [],
    checks: [],
    findings: [],
    usage: emptyUsage(),
    checkpoints: [],
    cancelRequested: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

const ALLOWED: [OperationStatus, OperationStatus][] = [
  ['queued', 'running'],
  ['queued', 'cancelled'],
  ['running', 'awaiting_approval'],
  ['running', 'failed'],
  ['running', 'cancelled'],
  ['running', 'evaluated'],
  ['awaiting_approval', 'approved'],
  ['awaiting_approval', 'rejected'],
  ['awaiting_approval', 'running'],
  ['approved', 'merging'],
  ['approved', 'awaiting_approval'],
  ['merging', 'merged'],
  ['merging', 'failed'],
  ['merging', 'running'],
];

describe('operation state machine', () => {
  it('the table holds exactly the documented transitions', () => {
    const table = Object.entries(TRANSITIONS).flatMap(([from, tos]) => tos.map((to) => [from, to]));
    expect(table.sort()).toEqual([...ALLOWED].sort());
  });

  /** An outcome that ends in `to` (a final status needs one). */
  const ENDINGS: Partial<Record<OperationStatus, Outcome>> = {
    merged: { code: 'merged' },
    rejected: { code: 'rejected', by: 'alice' },
    failed: { code: 'internal', detail: 'because' },
    cancelled: { code: 'requested' },
    evaluated: { code: 'evaluated' },
  };
  const outcomeFor = (to: OperationStatus) => ENDINGS[to];

  it.each(ALLOWED)('allows %s → %s', (from, to) => {
    const outcome = outcomeFor(to);
    const next = transition(op(from), to, outcome ? { outcome } : {}, new Date('2026-02-02T00:00:00Z'));
    expect(next.status).toBe(to);
    expect(next.updatedAt).toBe('2026-02-02T00:00:00.000Z');
    expect(next.version).toBe(3); // the store bumps versions, not the state machine
  });

  const forbidden = OPERATION_STATUSES.flatMap((from) =>
    OPERATION_STATUSES.filter((to) => !canTransition(from, to)).map(
      (to) => [from, to] as [OperationStatus, OperationStatus],
    ),
  );

  it('refuses every other pair with a typed error', () => {
    expect(forbidden.length).toBe(OPERATION_STATUSES.length ** 2 - ALLOWED.length);
    for (const [from, to] of forbidden) {
      const outcome = outcomeFor(to);
      expect(() => transition(op(from), to, outcome ? { outcome } : {})).toThrow(InvalidTransitionError);
    }
  });

  it.each([
    ['merged', 'running'],
    ['failed', 'queued'],
    ['cancelled', 'running'],
    ['queued', 'merged'],
    ['awaiting_approval', 'merged'],
  ] as const)('refuses %s → %s with code invalid_transition and both statuses', (from, to) => {
    try {
      transition(op(from), to);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidTransitionError);
      expect((err as InvalidTransitionError).code).toBe('invalid_transition');
      expect((err as InvalidTransitionError).context).toEqual({ from, to });
    }
  });

  it('requires an outcome to end in any final status, and the outcome must lead there', () => {
    expect(() => transition(op('running'), 'failed')).toThrow(/needs an outcome/);
    expect(() => transition(op('queued'), 'cancelled')).toThrow(/needs an outcome/);
    expect(() => transition(op('awaiting_approval'), 'rejected')).toThrow(/needs an outcome/);
    expect(() => transition(op('merging'), 'merged')).toThrow(/needs an outcome/);
    expect(() => transition(op('running'), 'cancelled', { outcome: { code: 'budget', detail: 'x' } })).toThrow(
      /outcome budget ends in failed, not cancelled/,
    );
  });

  it('derives the sentence (`error`) from the outcome, and keeps the outcome', () => {
    const failed = transition(op('running'), 'failed', { outcome: { code: 'checks_failed', detail: 'test exited 1' } });
    expect(failed.error).toBe('checks failed: test exited 1');
    expect(failed.outcome).toEqual({ code: 'checks_failed', detail: 'test exited 1' });
  });

  it('keeps an earlier sentence when moving on to a status that needs none', () => {
    const failedMerge = { ...op('merging'), error: 'old' };
    expect(transition(failedMerge, 'running').error).toBe('old');
    expect(transition(failedMerge, 'merged', { outcome: { code: 'merged' } }).error).toBe('old');
  });
});
