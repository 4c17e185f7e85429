import type { OperationEvent } from '@pullwright/core';
import { PullwrightError, silentLogger } from '@pullwright/core';
import { Redactor } from '@pullwright/security';
import { describe, expect, it } from 'vitest';
import { ciAttemptsBehind, handleCiFailure } from './ci-revision.ts';

const sha = (c: string) => c.repeat(40);
const pushed = (requestId: string, headSha: string, changed = true): OperationEvent => ({
  id: '1-0',
  ts: '',
  opId: 'op',
  type: 'revision',
  data: { state: 'pushed', requestId, headSha, changed },
});

describe('ciAttemptsBehind', () => {
  it.each<[string, OperationEvent[], string, number]>([
    ['a head nobody revised', [], sha('a'), 0],
    ['one CI revision made it', [pushed(`ci-${sha('a')}`, sha('b'))], sha('b'), 1],
    ['two in a row', [pushed(`ci-${sha('a')}`, sha('b')), pushed(`ci-${sha('b')}`, sha('c'))], sha('c'), 2],
    [
      'a review revision breaks the chain',
      [pushed(`ci-${sha('a')}`, sha('b')), pushed('review-42', sha('c')), pushed(`ci-${sha('c')}`, sha('d'))],
      sha('d'),
      1,
    ],
    ['a revision that changed nothing made no head', [pushed(`ci-${sha('a')}`, sha('a'), false)], sha('a'), 0],
    ['a cycle ends', [pushed(`ci-${sha('a')}`, sha('b')), pushed(`ci-${sha('b')}`, sha('a'))], sha('a'), 2],
  ])('%s', (_name, events, head, expected) => {
    expect(ciAttemptsBehind(events, head)).toBe(expected);
  });
});

describe('handleCiFailure when the checks cannot be read', () => {
  const job = { opId: 'op', headSha: sha('a'), settleMs: 0 };
  /** Only what the look touches before it reads the checks; the rest of the deps are never reached. */
  function deps(failure: Error) {
    const appended: [string, string, Record<string, unknown>][] = [];
    const op = {
      id: 'op',
      repo: 'acme/api',
      status: 'awaiting_approval',
      pullRequest: { number: 1, url: '', headSha: sha('a') },
    };
    const d = {
      store: { find: async () => op },
      forge: {
        listCheckRuns: async () => {
          throw failure;
        },
      },
      events: {
        append: async (id: string, type: string, data: Record<string, unknown>) => appended.push([id, type, data]),
      },
      redactor: new Redactor({ secrets: ['s3cret-value-123'] }),
      logger: silentLogger(),
    };
    return { d: d as unknown as Parameters<typeof handleCiFailure>[1], appended };
  }

  it('ends this look with an event saying why, never the operation', async () => {
    const { d, appended } = deps(new PullwrightError('forge_failed', 'GitHub answered 502 for s3cret-value-123'));
    const outcome = await handleCiFailure(job, d);
    expect(outcome).toMatch(/^not handled: GitHub answered 502 for \[redacted/);
    expect(outcome).not.toContain('s3cret-value-123');
    const reason = outcome.replace('not handled: ', '');
    expect(appended).toEqual([['op', 'ci_failure', { headSha: sha('a'), state: 'unreadable', reason }]]);
  });

  it('rethrows a transient error, so the job runs again', async () => {
    const { d, appended } = deps(new PullwrightError('unavailable', 'redis away'));
    await expect(handleCiFailure(job, d)).rejects.toThrow('redis away');
    expect(appended).toEqual([]);
  });
});
