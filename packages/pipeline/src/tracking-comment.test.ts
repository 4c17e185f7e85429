import { emptyUsage, type LedgerRound, Operation } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { trackingBody } from './tracking-comment.ts';

const createTestOperation = (): Operation =>
  Operation.parse({
    id: 'op123456',
    type: 'fix',
    repo: 'acme/app',
    baseBranch: 'main',
    description: 'fix it',
    context: {},
    requester: { source: 'api', user: 'ci' },
    status: 'awaiting_approval',
    version: 1,
    usage: emptyUsage(),
    createdAt: '2026-11-24T09:00:00.000Z',
    updatedAt: '2026-11-24T09:00:00.000Z',
  });

const round = (n: number, over: Partial<LedgerRound> = {}): LedgerRound => ({
  requestId: `r${n}`,
  at: '2026-11-24T09:00:00.000Z',
  fromSha: `${n}`.repeat(40),
  state: 'pushed',
  headSha: `${n + 1}`.repeat(40),
  entries: [
    {
      source: n === 1 ? 'github' : 'slack',
      kind: n === 1 ? 'review_comment' : 'slack',
      ref: n,
      user: `user${n}`,
      text: `change number ${n}`,
      outcome: 'fixed',
    },
  ],
  ...over,
});

describe('trackingBody', () => {
  it('keeps every round: the newest open, older ones collapsed, with interdiff links', () => {
    const op: Operation = { ...createTestOperation(), ledger: [round(1), round(2)] };
    const body = trackingBody(op, 'Revision pushed.', 'https://pw.example');
    expect(body).toContain('#### Round 2 · 1 request(s) · pushed `3333333`');
    expect(body).toMatch(/<details><summary>Round 1 [^\n]*<\/summary>\n\n\| Request \| Outcome \|/);
    expect(body).toContain('@user1 (github): change number 1 | Fixed in 2222222. |');
    expect(body).toContain('@user2 (slack): change number 2 | Fixed in 3333333. |');
    expect(body).toContain(`https://pw.example/#/op/${op.id}?tab=changes&from=${'2'.repeat(40)}`);
    expect(body.indexOf('Round 2')).toBeLessThan(body.indexOf('Round 1'));
  });

  it('says what a failed round did not do, and escapes table breakers', () => {
    const failed = round(1, {
      state: 'failed',
      error: 'budget exhausted',
      entries: [{ source: 'api', kind: 'api', ref: 1, user: 'ci', text: 'a | b\nsecond line' }],
    });
    delete failed.headSha;
    const body = trackingBody({ ...createTestOperation(), ledger: [failed] }, 'note');
    expect(body).toContain('failed: budget exhausted');
    expect(body).toContain('a \\| b | Not done: the revision failed |');
    expect(body).not.toContain('](');
  });

  it('has no ledger section before any revision', () => {
    expect(trackingBody(createTestOperation(), 'Opened.')).not.toContain('Review ledger');
  });
});
