import type { OperationEvent } from '@pullwright/queue';
import { describe, expect, it } from 'vitest';
import { ciAttemptsBehind } from './ci-revision.ts';

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
