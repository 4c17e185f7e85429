import { emptyUsage, Operation, Plan } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { issueTrackingBody } from './issue-tracking.ts';

/** The record's defaults fill the rest (no checks, no files, no usage yet). */
const base = Operation.parse({
  id: 'op1',
  type: 'fix',
  repo: 'acme/api',
  baseBranch: 'main',
  description: 'd',
  context: {},
  requester: { source: 'github', user: 'maria' },
  status: 'running',
  version: 1,
  usage: emptyUsage(),
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

describe('issueTrackingBody', () => {
  it('shows the plan and progress while running', () => {
    const plan = Plan.parse({
      summary: 'Split on whitespace.',
      steps: [
        { title: 'Reproduce', acceptance: 'a failing test' },
        { title: 'Fix', acceptance: 'the test passes' },
      ],
    });
    expect(issueTrackingBody({ ...base, plan }, 'run: agent done')).toBe(
      '**Pullwright** · operation `op1` (fix) · running\n\n**Plan:** Split on whitespace.\n\n1. Reproduce\n\n2. Fix\n\n**Progress:** run: agent done',
    );
  });

  it('shows the PR once open, and why it stopped once it did (no stale progress)', () => {
    const pullRequest = { number: 3, url: 'https://gh/acme/api/pull/3', headSha: 'abc' };
    expect(issueTrackingBody({ ...base, status: 'awaiting_approval', pullRequest }, 'old')).toBe(
      '**Pullwright** · operation `op1` (fix) · awaiting approval\n\n**Pull request:** https://gh/acme/api/pull/3 (#3)',
    );
    expect(issueTrackingBody({ ...base, status: 'failed', error: 'budget exhausted\nturns: 30' })).toBe(
      '**Pullwright** · operation `op1` (fix) · failed\n\n**Why it stopped:**\n> budget exhausted\n> turns: 30',
    );
  });
});
