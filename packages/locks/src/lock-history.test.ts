import { describe, expect, it } from 'vitest';
import { checkLockHistory, type GrantRecord, type SectionRecord } from './lock-history.ts';

const grant = (opId: string, token: number, sentAt: number, replyAt: number, paths = ['a']): GrantRecord => ({
  opId,
  token,
  paths,
  sentAt,
  replyAt,
});
const section = (opId: string, token: number, start: number, end: number, refusedWrites = 0): SectionRecord => ({
  path: 'a',
  opId,
  token,
  start,
  end,
  refusedWrites,
});

/** The checker must be able to fail, or the property test proves nothing. */
describe('checkLockHistory', () => {
  const grants = [grant('op1', 1, 0, 1), grant('op2', 2, 5, 6)];

  it('passes a clean history', () => {
    expect(
      checkLockHistory({
        grants,
        sections: [section('op1', 1, 1, 4), section('op2', 2, 6, 9)],
        accepted: new Map([['a', ['op1 1', 'op1 1', 'op2 2']]]),
        vanished: [],
      }),
    ).toEqual([]);
  });

  it('flags overlapping sections, also behind a long one', () => {
    const violations = checkLockHistory({
      grants: [...grants, grant('op3', 3, 7, 8)],
      sections: [section('op1', 1, 1, 20), section('op2', 2, 6, 7), section('op3', 3, 8, 9)],
      accepted: new Map(),
      vanished: [],
    });
    expect(violations).toHaveLength(2);
    expect(violations[0]).toContain('op2 (token 2) entered');
  });

  it('flags reused and shrinking tokens', () => {
    expect(
      checkLockHistory({
        grants: [grant('op1', 1, 0, 1), grant('op2', 1, 2, 3)],
        sections: [],
        accepted: new Map(),
        vanished: [],
      }),
    ).toEqual(['token 1 granted to both op1 and op2', 'token went back: op2 got 1 after op1 had received 1']);
  });

  it('flags stale, foreign and interleaved writes on the resource', () => {
    const violations = checkLockHistory({
      grants,
      sections: [],
      accepted: new Map([['a', ['op2 2', 'op1 1', 'op2 2', 'op9 9']]]),
      vanished: [],
    });
    expect(violations).toEqual([
      'a: accepted token 1 after 2',
      'a: writes of op2 2 resumed after another holder wrote',
      'a: accepted a write by op9 with token 9 it was never granted for this path',
    ]);
  });

  it('flags a write refused inside a claimed section', () => {
    expect(
      checkLockHistory({ grants, sections: [section('op1', 1, 1, 4, 1)], accepted: new Map(), vanished: [] }),
    ).toEqual(['op1 had 1 write(s) to a refused while valid']);
  });

  it('flags a lock that vanished while its lease was valid', () => {
    expect(
      checkLockHistory({ grants, sections: [], accepted: new Map(), vanished: [{ path: 'a', opId: 'op1', at: 2 }] }),
    ).toEqual(['op1 lost a at 2.00 while its lease was valid']);
  });
});
