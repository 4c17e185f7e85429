// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (
  op: Record<string, unknown>,
  since: string | null,
  onSince: (from: string | null) => void,
) => CardElement;
const { renderDiffBar } = await loadCard<{ renderDiffBar: Render }>('card-diff.js');

const HEAD = 'c'.repeat(40);
const APPROVED = 'a'.repeat(40);
const PUSHED_FROM = 'b'.repeat(40);
const PR = { number: 1, url: 'http://x/pr/1', headSha: HEAD };

function harness(op: Record<string, unknown>, since: string | null) {
  const picked: (string | null)[] = [];
  return { el: renderDiffBar(op, since, (from) => picked.push(from)), picked };
}

describe('the diff bar', () => {
  it('offers the changes since the last approval of an older head, and reports the pick', () => {
    const approvals = [{ headSha: APPROVED }, { headSha: HEAD }];
    const { el, picked } = harness({ pullRequest: PR, approvals }, null);
    expect(el.querySelector('#diff-all')!.getAttribute('aria-pressed')).toBe('true');
    const since = el.querySelector('#diff-since')!;
    expect(since.textContent).toBe('Since last review (aaaaaaa)');
    expect(since.getAttribute('aria-pressed')).toBe('false');
    since.click();
    el.querySelector('#diff-all')!.click();
    expect(picked).toEqual([APPROVED, null]);
  });

  it('without an approval, starts from the head a pushed change request was made on', () => {
    const ledger = [{ state: 'pushed', fromSha: PUSHED_FROM, headSha: HEAD, entries: [] }];
    const { el } = harness({ pullRequest: PR, ledger }, null);
    expect(el.querySelector('#diff-since')!.textContent).toBe('Since last review (bbbbbbb)');
  });

  it('shows the interdiff on screen as pressed', () => {
    const { el } = harness({ pullRequest: PR }, PUSHED_FROM);
    expect(el.querySelector('#diff-since')!.getAttribute('aria-pressed')).toBe('true');
    expect(el.querySelector('#diff-all')!.getAttribute('aria-pressed')).toBe('false');
  });

  it('offers only all changes when nothing was reviewed yet', () => {
    const { el } = harness({ pullRequest: PR, approvals: [{ headSha: HEAD }] }, null);
    expect(el.querySelector('#diff-since')).toBeNull();
    expect(el.textContent).toBe('All changes');
  });
});
