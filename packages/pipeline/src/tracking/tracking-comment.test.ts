import { emptyUsage, type LedgerRound, Operation } from '@pullwright/core';
import { Redactor } from '@pullwright/security';
import { describe, expect, it } from 'vitest';
import { trackingBody, updateTrackingComment } from './tracking-comment.ts';

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

describe('updateTrackingComment', () => {
  const secret = ['sk', 'live', 'x'.repeat(24)].join('_');
  const written: { where: string; body: string }[] = [];
  const warned: unknown[] = [];
  const deps = {
    forge: {
      upsertTrackingComment: async (repo: string, number: number, body: string) => {
        if (repo === 'acme/down') throw new Error('GitHub: 502');
        written.push({ where: `${repo}#${number}`, body });
      },
    },
    redactor: new Redactor({ secrets: [secret] }),
    publicUrl: 'https://pw.example',
  };
  const log = { warn: (...args: unknown[]) => warned.push(args) };
  const pullRequest = { number: 7, url: 'https://pw.example/pr/7', headSha: 'a'.repeat(40) };

  it('writes the body redacted and with the interdiff links, on the PR of the operation', async () => {
    const op: Operation = { ...createTestOperation(), pullRequest, ledger: [round(1)] };
    await updateTrackingComment(deps, op, `Pushed; the token was ${secret}.`, log);
    expect(written).toHaveLength(1);
    expect(written[0]!.where).toBe('acme/app#7');
    expect(written[0]!.body).not.toContain(secret);
    expect(written[0]!.body).toContain(`https://pw.example/#/op/${op.id}?tab=changes&from=${'1'.repeat(40)}`);
  });

  it('writes nothing without a pull request, and only logs a forge that fails', async () => {
    written.length = 0;
    await updateTrackingComment(deps, createTestOperation(), 'no PR yet', log);
    expect(written).toEqual([]);
    await updateTrackingComment(deps, { ...createTestOperation(), repo: 'acme/down', pullRequest }, 'note', log);
    expect(warned).toEqual([[{ opId: 'op123456', err: 'GitHub: 502' }, 'tracking comment update failed']]);
  });
});
