import { decidePlan, emptyUsage, type Operation } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { needsPlanConfirmation, planWithNote } from './await-plan-confirmation.ts';
import { describeWait } from './wait-for-person.ts';

function op(overrides: Partial<Operation> = {}): Operation {
  return {
    id: 'lx2k9a3f01ab',
    type: 'implement',
    repo: 'acme/api',
    baseBranch: 'main',
    description: 'add rate limiting',
    context: {},
    requester: { source: 'slack', user: 'UDEV00001' },
    priority: 'medium',
    targetFiles: [],
    status: 'running',
    version: 3,
    filesChanged: [],
    checks: [],
    findings: [],
    usage: emptyUsage(),
    checkpoints: [],
    cancelRequested: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:01:00.000Z',
    ...overrides,
  };
}

const plan = {
  summary: 'Add a limiter',
  steps: [{ title: 'Limit requests', files: ['src/limit.ts'], acceptance: 'tests pass', tests: [] }],
  risks: [],
};

describe('needsPlanConfirmation', () => {
  it.each([
    ['an /implement from Slack', {}, true],
    ['an /implement from Slack with --auto', { confirmPlan: false }, false],
    ['a /debug from Slack', { type: 'debug' as const }, false],
    ['an /implement from the API', { requester: { source: 'api' as const, user: 'api' } }, false],
    [
      'any request that asks',
      { type: 'fix' as const, requester: { source: 'api' as const, user: 'x' }, confirmPlan: true },
      true,
    ],
  ])('%s → %s', (_what, overrides, expected) => {
    expect(needsPlanConfirmation(op(overrides))).toBe(expected);
  });
});

describe('planWithNote', () => {
  it('adds the note as a last step the coder must satisfy, and leaves a plan without a note alone', () => {
    const modified = planWithNote(plan, { note: 'keep the old header', by: 'U1' });
    expect(modified.steps).toHaveLength(2);
    expect(modified.steps[1]).toEqual({
      title: 'Change requested by U1 when the plan was confirmed',
      files: [],
      acceptance: 'keep the old header',
      tests: [],
    });
    expect(plan.steps).toHaveLength(1);
    expect(planWithNote(plan, {})).toBe(plan);
  });
});

describe('describeWait', () => {
  it.each([
    [3_600_000, '1 h'],
    [5_400_000, '90 min'],
    [30_000, '30 s'],
    [800, '800 ms'],
    [1500, '1500 ms'],
  ])('%d → %s', (ms, text) => expect(describeWait(ms)).toBe(text));
});

describe('decidePlan', () => {
  const pending = op({ planConfirmation: { state: 'pending', since: '2026-01-01T00:00:30.000Z' } });
  const now = new Date('2026-01-01T00:02:00.000Z');

  it('records who started or modified the plan, with the trimmed note', () => {
    expect(decidePlan(pending, { decision: 'start', by: 'U1' }, now).planConfirmation).toEqual({
      state: 'started',
      since: '2026-01-01T00:00:30.000Z',
      by: 'U1',
      at: now.toISOString(),
    });
    expect(
      decidePlan(pending, { decision: 'modify', by: 'U1', note: '  no new deps ' }, now).planConfirmation,
    ).toMatchObject({
      state: 'modified',
      note: 'no new deps',
    });
  });

  it('refuses a modify without a note, and any decision when no plan waits', () => {
    expect(() => decidePlan(pending, { decision: 'modify', by: 'U1', note: ' ' })).toThrow(
      expect.objectContaining({ code: 'validation_failed' }),
    );
    const started = decidePlan(pending, { decision: 'start', by: 'U1' });
    expect(() => decidePlan(started, { decision: 'start', by: 'U2' })).toThrow(/already started by U1/);
    expect(() => decidePlan(op(), { decision: 'start', by: 'U1' })).toThrow(
      expect.objectContaining({ code: 'conflict' }),
    );
    expect(() => decidePlan({ ...pending, cancelRequested: true }, { decision: 'start', by: 'U1' })).toThrow(
      /not waiting .*cancelling/,
    );
    expect(() => decidePlan({ ...pending, status: 'cancelled' }, { decision: 'start', by: 'U1' })).toThrow(
      /not waiting .*cancelled/,
    );
  });
});
