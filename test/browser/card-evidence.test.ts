// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (evidence: Record<string, unknown>) => CardElement;
const { renderEvidence } = await loadCard<{ renderEvidence: Render }>('card-evidence.js');

const texts = (el: CardElement, selector: string) => [...el.querySelectorAll(selector)].map((li) => li.textContent);

describe('the evidence card', () => {
  it('lists the tests that failed before the change and pass after it', () => {
    const el = renderEvidence({
      reproduced: true,
      red: ['slugify > spaces'],
      green: ['slugify > spaces'],
      note: 'one test',
    });
    expect(el.querySelector('p')!.textContent).toBe(
      'Reproduced: these tests failed on the base branch and pass with the change.',
    );
    expect(el.querySelector('p')!.className).toBe('good-text');
    expect(texts(el, '.tests-red li')).toEqual(['slugify > spaces']);
    expect(texts(el, '.tests-green li')).toEqual(['slugify > spaces']);
    expect(texts(el, 'h3')).toEqual(['Failed before', 'Pass after']);
    expect(el.textContent).toContain('one test');
  });

  it('says when no failing test reproduced the bug, with no empty lists', () => {
    const el = renderEvidence({ reproduced: false, red: [], green: [] });
    expect(el.querySelector('p')!.textContent).toBe('Not reproduced by a failing test.');
    expect(el.querySelector('p')!.className).toBe('warn-text');
    expect(el.querySelectorAll('ul').length).toBe(0);
  });
});
