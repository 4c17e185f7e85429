// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (
  op: Record<string, unknown>,
  on: { onExtend: (amount: number) => void; onStop: () => void },
) => CardElement | null;
const { renderBudgetDecision } = await loadCard<{ renderBudgetDecision: Render }>('card-budget.js');
type Usage = (usage: Record<string, number>, budget: unknown, defaults: unknown, contract?: unknown) => CardElement;
const { renderUsage } = await loadCard<{ renderUsage: Usage }>('card-usage.js');

const PENDING = {
  status: 'running',
  cancelRequested: false,
  budgetContract: { extendedUsd: 0, pause: { state: 'pending', since: 'x', spentUsd: 0.3, limitUsd: 0.35 } },
};

function harness(op: Record<string, unknown>) {
  const calls: string[] = [];
  const el = renderBudgetDecision(op, {
    onExtend: (amount) => calls.push(`extend:${amount}`),
    onStop: () => calls.push('stop'),
  });
  return { el, calls };
}

describe('the budget decision', () => {
  it('says what was spent of what; extends by the amount typed, only a positive one; stops', () => {
    const { el, calls } = harness(PENDING);
    expect(el!.textContent).toContain('$0.30 of $0.35 spent');
    const amount = el!.querySelector('#budget-amount')!;
    amount.value = '0';
    el!.querySelector('#budget-extend')!.click();
    expect(calls).toEqual([]);
    expect(amount.getAttribute('aria-invalid')).toBe('true');
    amount.value = '1.5';
    el!.querySelector('#budget-extend')!.click();
    el!.querySelector('#budget-stop')!.click();
    expect(calls).toEqual(['extend:1.5', 'stop']);
  });

  it.each([
    ['nothing is paused', { status: 'running', cancelRequested: false }],
    ['the pause was decided', { ...PENDING, budgetContract: { pause: { state: 'extended' } } }],
    ['a cancel was asked', { ...PENDING, cancelRequested: true }],
    ['the operation ended', { ...PENDING, status: 'failed' }],
  ])('is absent when %s', (_name, op) => {
    expect(harness(op).el).toBeNull();
  });

  it('the usage card shows the estimate and what people added', () => {
    const usage = { inputTokens: 1, outputTokens: 1, costUsd: 0.5, wallTimeMs: 0, modelCalls: 5 };
    const el = renderUsage(usage, undefined, undefined, {
      estimateUsd: 0.42,
      estimateBasis: 'history',
      estimateSamples: 6,
      extendedUsd: 1,
    });
    expect(el.querySelector('#budget-estimate')!.textContent).toBe(
      'Estimate: $0.42 (median of the last 6 finished operation(s) of this type) · extended by $1.00',
    );
    expect(renderUsage(usage, undefined, undefined).querySelector('#budget-estimate')).toBeNull();
  });
});
