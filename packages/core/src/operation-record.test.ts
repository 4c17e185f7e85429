import { describe, expect, it } from 'vitest';
import { emptyUsage, Operation } from './operation.ts';

/** A record as the store keeps it; each test adds the fields it is about. */
const stored = {
  id: 'op1',
  type: 'fix',
  repo: 'acme/api',
  baseBranch: 'main',
  description: 'Fix the parser',
  context: {},
  requester: { source: 'api', user: 'alice' },
  status: 'awaiting_approval',
  version: 3,
  usage: emptyUsage(),
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const plan = {
  plan_id: 'plan_0001',
  summary: 'Split on whitespace',
  steps: [{ id: 'T1', title: 'Fix the split', files: ['src/split.ts'], acceptance: 'tabs split', tests: ['test'] }],
  risks: [],
};

describe('the operation record', () => {
  it('types its plan, review, findings, policy and ledger', () => {
    const op = Operation.parse({
      ...stored,
      plan,
      review: { decision: 'accept', reasons: ['small'], must_fix: [] },
      findings: [{ ruleId: 'github-pat', file: 'src/a.ts', line: 3, preview: 'ghp_…', channel: 'file' }],
      ledger: [{ requestId: 'r1', at: '2026-01-01T00:00:00.000Z', state: 'pushed', entries: [] }],
    });
    expect(op.plan?.steps[0]?.files).toEqual(['src/split.ts']);
    expect(op.review?.decision).toBe('accept');
    expect(op.findings[0]?.ruleId).toBe('github-pat');
    expect(op.ledger?.[0]?.state).toBe('pushed');
  });

  it('reads records written by older versions', () => {
    const op = Operation.parse({
      ...stored,
      // A plan from before step ids and per-step tests: the defaults fill in.
      plan: { summary: 'Split', steps: [{ title: 'Fix', acceptance: 'passes' }] },
      // A finding from before the outbound scan (2026-11-24): no channel, a file scan.
      findings: [{ ruleId: 'aws-key', file: 'a.ts', line: 1, preview: 'AKIA…' }],
    });
    expect(op.plan).toEqual({
      summary: 'Split',
      steps: [{ title: 'Fix', acceptance: 'passes', files: [], tests: [] }],
      risks: [],
    });
    expect(op.findings).toEqual([{ ruleId: 'aws-key', file: 'a.ts', line: 1, preview: 'AKIA…', channel: 'file' }]);
  });

  it('reads a plan, review or policy it can no longer parse as none, rather than failing the record', () => {
    const op = Operation.parse({
      ...stored,
      plan: 'a plan as text',
      review: { decision: 'maybe' },
      policy: { deploy: { target: { kind: 'webhook' } } },
    });
    expect(op.plan).toBeUndefined();
    expect(op.review).toBeUndefined();
    expect(op.policy).toBeUndefined();
  });
});
