// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (usage: Record<string, number>, budget: unknown, defaults: unknown) => CardElement;
const { renderUsage } = await loadCard<{ renderUsage: Render }>('card-usage.js');

const USAGE = { inputTokens: 12_345, outputTokens: 678, costUsd: 0.4321, wallTimeMs: 95_000, modelCalls: 9 };
const DEFAULTS = { turns: 40, tokens: 2_000_000, wallMs: 1_800_000, costUsd: 5 };

const pairs = (el: CardElement) => {
  const dt = [...el.querySelectorAll('dt')].map((d) => d.textContent);
  const dd = [...el.querySelectorAll('dd')].map((d) => d.textContent);
  return Object.fromEntries(dt.map((k, i) => [k, dd[i]]));
};

describe('the usage card', () => {
  it('shows tokens, calls, cost and wall time, and the service budget', () => {
    const el = renderUsage(USAGE, undefined, DEFAULTS);
    expect(pairs(el)).toEqual({
      'Tokens in': '12.3k',
      'Tokens out': '678',
      'Model calls': '9',
      Cost: '$0.43',
      'Wall time': '1 m 35 s',
    });
    expect(el.querySelector('#budget')!.textContent).toBe('Budget: 40 turns · $5.00 · 30 m 00 s · 2.00M tokens');
  });

  it("says when the operation set its own budget, and shows no wall time or budget it doesn't have", () => {
    const el = renderUsage({ ...USAGE, wallTimeMs: 0 }, { turns: 30 }, DEFAULTS);
    expect(el.querySelector('#budget')!.textContent).toBe(
      'Budget (set for this operation): 30 turns · $5.00 · 30 m 00 s · 2.00M tokens',
    );
    expect(Object.keys(pairs(el))).not.toContain('Wall time');
    expect(renderUsage(USAGE, undefined, undefined).querySelector('#budget')).toBeNull();
  });
});
