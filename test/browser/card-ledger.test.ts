// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (ledger: unknown, onSince?: (sha: string) => void) => CardElement;
const { renderLedger } = await loadCard<{ renderLedger: Render }>('card-ledger.js');

const sha = (c: string) => c.repeat(40);
const LEDGER = [
  {
    requestId: 'r1',
    at: '2026-11-24T09:00:00Z',
    fromSha: sha('a'),
    headSha: sha('b'),
    state: 'pushed',
    entries: [
      {
        source: 'github',
        kind: 'review_comment',
        ref: 1,
        user: 'maria',
        text: 'Drop punctuation',
        path: 'src/a.js',
        line: 3,
        outcome: 'fixed',
      },
      {
        source: 'github',
        kind: 'review_comment',
        ref: 2,
        user: 'maria',
        text: 'Rename it',
        outcome: 'declined',
        note: 'breaks callers',
      },
    ],
  },
  {
    requestId: 'r2',
    at: '2026-11-24T09:10:00Z',
    fromSha: sha('b'),
    state: 'failed',
    error: 'check "test" exited with 1\nmore',
    entries: [{ source: 'slack', kind: 'slack', ref: 3, user: 'U1', text: 'Add <b>docs</b>' }],
  },
];

describe('the review ledger card', () => {
  it('shows every round newest first, who asked where, and each outcome', () => {
    const el = renderLedger(LEDGER);
    const rounds = [...el.querySelectorAll('.ledger-round')];
    expect(rounds.map((r) => r.dataset.round)).toEqual(['2', '1']);
    expect(rounds[0]!.querySelector('.ledger-head')!.textContent).toBe('Round 2 · failed: check "test" exited with 1');
    expect(rounds[0]!.querySelector('.ledger-outcome')!.textContent).toBe('Not done: the revision failed');
    const first = [...rounds[1]!.querySelectorAll('.ledger-entry')].map((e) => e.textContent);
    expect(first).toEqual([
      'maria (GitHub) on src/a.js:3Drop punctuationDone in bbbbbbb',
      'maria (GitHub)Rename itDeclined: breaks callers',
    ]);
    // Text from people stays text.
    expect(el.querySelector('b')).toBeNull();
    expect(el.textContent).toContain('Add <b>docs</b>');
  });

  it('links a pushed round to its changes (the interdiff from the head it started on)', () => {
    const asked: string[] = [];
    const el = renderLedger(LEDGER, (s) => asked.push(s));
    const links = el.querySelectorAll('.ledger-since');
    expect(links).toHaveLength(1);
    links[0]!.click();
    expect(asked).toEqual([sha('a')]);
  });

  it('says so when nobody asked for changes', () => {
    expect(renderLedger([]).textContent).toBe('No changes requested yet.');
    expect(renderLedger(undefined).id).toBe('ledger-empty');
  });
});
