// @vitest-environment happy-dom

import type { Review } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (review: Review) => CardElement;
const { renderReview } = await loadCard<{ renderReview: Render }>('card-review.js');

describe('the review card', () => {
  it('shows an acceptance with its reasons', () => {
    const el = renderReview({ decision: 'accept', reasons: ['the test covers the bug'], must_fix: [] });
    expect(el.querySelector('p')!.textContent).toBe('Accepted by the reviewer role');
    expect(el.querySelector('p')!.className).toBe('good-text');
    expect(el.querySelector('ul')!.textContent).toBe('the test covers the bug');
    expect(el.querySelector('h3')).toBeNull();
  });

  it('shows a change request with what must be fixed', () => {
    const el = renderReview({ decision: 'request_changes', reasons: [], must_fix: ['handle tabs', 'add a test'] });
    expect(el.querySelector('p')!.textContent).toBe('Changes requested by the reviewer role');
    expect(el.querySelector('h3')!.textContent).toBe('Must fix');
    expect([...el.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['handle tabs', 'add a test']);
  });
});
