// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (risk: unknown) => CardElement;
const { renderRisk } = await loadCard<{ renderRisk: Render }>('card-risk.js');

const stats = (files: number) => ({ files, additions: 12, deletions: 3, kinds: {} });

describe('the risk card', () => {
  it('shows the level, the size of the diff and the reasons', () => {
    const el = renderRisk({ level: 'high', reasons: ['touches auth', 'no tests'], stats: stats(3) });
    expect(el.querySelector('.risk')!.className).toBe('risk risk-high');
    expect(el.querySelector('p')!.textContent).toBe('high · 3 files, +12 −3');
    expect([...el.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['touches auth', 'no tests']);
  });

  it('says when nothing raised the level, in the singular for one file', () => {
    const el = renderRisk({ level: 'low', reasons: [], stats: stats(1) });
    expect(el.querySelector('p')!.textContent).toBe('low · 1 file, +12 −3');
    expect(el.querySelectorAll('p')[1]!.textContent).toBe('No risk factors found.');
  });

  it('is not assessed yet without a risk, and shows an old plain-text risk as it is', () => {
    expect(renderRisk(undefined).textContent).toBe('Not assessed yet.');
    expect(renderRisk('medium').textContent).toBe('medium');
  });
});
