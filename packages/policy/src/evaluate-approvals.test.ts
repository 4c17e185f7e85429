import type { ApprovalRecord } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { evaluateApprovals } from './evaluate-approvals.ts';
import { mergePolicies } from './merge-policies.ts';
import { parseRepoPolicy } from './parse-policy-file.ts';

const HEAD = 'a'.repeat(40);
const OLD = 'b'.repeat(40);
const policy = mergePolicies(
  {},
  parseRepoPolicy(`
approvals: { high_risk: { required: 1, not_requester: true } }
path_rules:
  - { name: workflows, paths: ['.github/workflows/**'], required: 2 }
  - { name: migrations, paths: ['migrations/**'], groups: [dba], not_requester: true }
`),
);

const approval = (identity: string, role: string, extra: Partial<ApprovalRecord> = {}): ApprovalRecord => ({
  identity,
  user: identity,
  source: 'api',
  role,
  groups: [],
  headSha: HEAD,
  at: '2026-01-01T00:00:00Z',
  ...extra,
});

const evaluate = (files: string[], level: 'low' | 'medium' | 'high', approvals: ApprovalRecord[]) =>
  evaluateApprovals({ policy, risk: { level }, files, approvals, headSha: HEAD, requesterId: 'pat' });

describe('evaluateApprovals', () => {
  it('one approval from a merger is enough for an ordinary change', () => {
    expect(evaluate(['src/a.ts'], 'medium', [approval('mia', 'merger')])).toMatchObject({
      satisfied: true,
      missing: [],
    });
  });

  it('an approval for an older head sha does not count', () => {
    const v = evaluate(['src/a.ts'], 'medium', [approval('mia', 'merger', { headSha: OLD })]);
    expect(v.satisfied).toBe(false);
    expect(v.current).toEqual([]);
    expect(v.missing).toEqual([
      'this change needs 1 approver: 1 more',
      'needs an approval from a merger (or higher) to merge',
    ]);
  });

  it("the requester's own approval does not count for high risk", () => {
    const v = evaluate(['src/auth/a.ts'], 'high', [approval('pat', 'admin')]);
    expect(v.satisfied).toBe(false);
    expect(v.missing).toEqual([
      "the requester's own approval does not count for high risk",
      'high risk needs 1 approver other than the requester: 1 more',
    ]);
    expect(evaluate(['src/auth/a.ts'], 'high', [approval('pat', 'admin'), approval('mia', 'merger')]).satisfied).toBe(
      true,
    );
  });

  it('a workflow change needs two approvers; the same person twice counts once', () => {
    const one = evaluate(['.github/workflows/ci.yml'], 'high', [approval('mia', 'merger'), approval('mia', 'merger')]);
    expect(one.missing).toEqual(['workflows (.github/workflows/ci.yml) needs 2 approvers: 1 more']);
    const two = evaluate(['.github/workflows/ci.yml'], 'high', [
      approval('mia', 'merger'),
      approval('cy', 'committer'),
    ]);
    expect(two.satisfied).toBe(true);
  });

  it('a group rule counts only members of the group, and says which group', () => {
    const v = evaluate(['migrations/2.sql'], 'high', [approval('mia', 'merger')]);
    expect(v.missing).toEqual([
      'migrations (migrations/2.sql) needs 1 approver other than the requester: 1 more from group dba',
    ]);
    expect(
      evaluate(['migrations/2.sql'], 'high', [
        approval('mia', 'merger'),
        approval('dan', 'committer', { groups: ['dba'] }),
      ]).satisfied,
    ).toBe(true);
  });

  it("a committer's approval counts as a review but not as the merge", () => {
    const v = evaluate(['src/a.ts'], 'medium', [approval('cy', 'committer')]);
    expect(v.missing).toEqual(['needs an approval from a merger (or higher) to merge']);
  });

  it("the policy's auto-approval satisfies the count and the merge, never a path rule or high risk", () => {
    const auto = approval('policy', 'admin', { source: 'policy', rule: 'auto_approve' });
    expect(evaluate(['docs/a.md'], 'low', [auto]).satisfied).toBe(true);
    expect(evaluate(['.github/workflows/ci.yml'], 'high', [auto]).missing).toEqual([
      'high risk needs 1 approver other than the requester: 1 more',
      'workflows (.github/workflows/ci.yml) needs 2 approvers: 2 more',
    ]);
  });
});
