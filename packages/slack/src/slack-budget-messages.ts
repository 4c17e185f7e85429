import type { Operation } from '@pullwright/core';
import type { KnownBlock } from '@slack/types';
import { actionButton, confirmDialog, section } from './block-kit.ts';

/** The budget pause's buttons (value: the operation id) and the box whose amount comes with Extend. */
export const BUDGET_EXTEND_ACTION = 'pw_budget_extend';
export const BUDGET_STOP_ACTION = 'pw_budget_stop';
export const BUDGET_AMOUNT_BLOCK = 'pw_budget_amount';
export const BUDGET_AMOUNT_INPUT = 'pw_budget_amount_input';

const usd = (v: unknown, digits = 2) => (typeof v === 'number' ? `$${v.toFixed(digits)}` : '$?');

const CONFIRM_STOP = confirmDialog(
  'Stop this operation?',
  'The work so far is kept as the operation’s diff; the model does not go on.',
  'Stop it',
);

/** The estimate before the agent starts (a `budget_estimate` event). */
export function budgetEstimateText(d: Record<string, unknown>): string {
  const basis =
    d.basis === 'history'
      ? `the median of this repository’s last ${String(d.samples)} finished operation(s) of this type`
      : 'the policy’s default';
  return `:moneybag: Estimated spend ${usd(d.estimateUsd)} (${basis}); the budget is ${usd(d.limitUsd)}.`;
}

/** The pause at the budget's threshold: how much is spent, a box for the amount, Extend / Stop. */
export function budgetPauseBlocks(op: Pick<Operation, 'id'>, d: Record<string, unknown>): KnownBlock[] {
  const within =
    typeof d.timeoutMs === 'number'
      ? ` Without an answer within ${Math.round(d.timeoutMs / 60_000)} min it stops.`
      : '';
  return [
    section(
      `:money_with_wings: *Paused at ${String(d.percent ?? '?')} % of the budget*: ${usd(d.spentUsd, 4)} of ${usd(d.limitUsd)} spent. Extend it by an amount, or stop and keep the work so far.${within}`,
    ),
    {
      type: 'input',
      block_id: BUDGET_AMOUNT_BLOCK,
      optional: true,
      label: { type: 'plain_text', text: 'Extend by (USD)' },
      element: {
        type: 'plain_text_input',
        action_id: BUDGET_AMOUNT_INPUT,
        placeholder: { type: 'plain_text', text: '1.00' },
      },
    },
    {
      type: 'actions',
      block_id: `pw_budget_${op.id}`,
      elements: [
        actionButton(BUDGET_EXTEND_ACTION, 'Extend', op.id, 'primary'),
        { ...actionButton(BUDGET_STOP_ACTION, 'Stop', op.id, 'danger'), confirm: CONFIRM_STOP },
      ],
    },
  ];
}

/** A decided pause, for the thread: who extended by how much, or who stopped it. */
export function budgetDecidedText(d: Record<string, unknown>, who: string): string {
  if (d.state === 'extended') return `:heavy_plus_sign: Budget extended by ${usd(d.amountUsd)} by ${who}; going on.`;
  if (d.by === 'timeout') return ':hourglass: Nobody answered at the budget’s threshold: stopping, the work is kept.';
  return `:octagonal_sign: Stopped at the budget’s threshold by ${who}; the work is kept.`;
}
