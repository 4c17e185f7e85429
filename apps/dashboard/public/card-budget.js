// The budget contract: while the operation is paused at its budget's threshold, Extend (by an amount) or Stop.
import { button, cost, h } from './dom.js';

/** @import { Operation } from '@pullwright/core' */

/**
 * Null unless the running operation waits at its budget's threshold (issue 32).
 * @param {Pick<Operation, 'status' | 'cancelRequested' | 'budgetContract'>} op
 * @param {{ onExtend: (amount: number) => void, onStop: () => void }} on
 */
export function renderBudgetDecision(op, { onExtend, onStop }) {
  const pause = op.budgetContract?.pause;
  if (op.status !== 'running' || op.cancelRequested || pause?.state !== 'pending') return null;
  const amount = h('input', {
    id: 'budget-amount',
    type: 'number',
    min: '0.01',
    step: '0.01',
    value: pause.limitUsd.toFixed(2),
  });
  const extend = () => {
    const value = Number(amount.value);
    if (!(value > 0)) {
      amount.setAttribute('aria-invalid', 'true');
      return amount.focus();
    }
    onExtend(value);
  };
  return h(
    'div',
    { class: 'plan-decision', id: 'budget-decision' },
    h(
      'p',
      { class: 'warn-text' },
      `Paused at its budget: ${cost(pause.spentUsd)} of ${cost(pause.limitUsd)} spent. Extend it, or stop and keep the work so far.`,
    ),
    h('label', { for: 'budget-amount' }, 'Extend by (USD)'),
    amount,
    h(
      'div',
      { class: 'row' },
      button('Extend', extend, 'primary', { id: 'budget-extend' }),
      button('Stop', () => onStop(), 'danger-outline', { id: 'budget-stop' }),
    ),
  );
}
