// What the operation has used (tokens, model calls, cost, time) and the budget it runs under.
import { cost, duration, h, tokens } from './dom.js';

/** @import { Budget, BudgetContract, Usage } from '@pullwright/core' */

/**
 * The limits this operation runs under: its own overrides, else the service defaults.
 * @param {Budget} own
 * @param {Required<Budget> | undefined} defaults  The session's service budget.
 */
function budgetLine(own, defaults) {
  if (!defaults) return null;
  const b = { ...defaults, ...own };
  const custom = Object.keys(own).length > 0;
  return h(
    'p',
    { class: 'muted small budget-line', id: 'budget' },
    `Budget${custom ? ' (set for this operation)' : ''}: ${b.turns} turns · ${cost(b.costUsd)} · ${duration(b.wallMs)} · ${tokens(b.tokens)} tokens`,
  );
}

/**
 * The estimate recorded before the agent started, and what people added at the threshold.
 * @param {BudgetContract | undefined} c
 */
function contractLine(c) {
  if (!c || (c.estimateUsd === undefined && !c.extendedUsd)) return null;
  const basis =
    c.estimateBasis === 'history'
      ? `median of the last ${c.estimateSamples} finished operation(s) of this type`
      : "the policy's default";
  return h(
    'p',
    { class: 'muted small budget-line', id: 'budget-estimate' },
    [
      c.estimateUsd !== undefined ? `Estimate: ${cost(c.estimateUsd)} (${basis})` : '',
      c.extendedUsd ? `extended by ${cost(c.extendedUsd)}` : '',
    ]
      .filter(Boolean)
      .join(' · '),
  );
}

/**
 * @param {Usage} u
 * @param {Budget | undefined} budget  The operation's own overrides.
 * @param {Required<Budget> | undefined} defaults
 * @param {BudgetContract} [contract]
 */
export function renderUsage(u, budget, defaults, contract) {
  return h(
    'div',
    {},
    h(
      'dl',
      { class: 'kv' },
      h('dt', {}, 'Tokens in'),
      h('dd', { class: 'num' }, tokens(u.inputTokens)),
      h('dt', {}, 'Tokens out'),
      h('dd', { class: 'num' }, tokens(u.outputTokens)),
      h('dt', {}, 'Model calls'),
      h('dd', { class: 'num' }, String(u.modelCalls)),
      h('dt', {}, 'Cost'),
      h('dd', { class: 'num', id: 'cost' }, cost(u.costUsd)),
      u.wallTimeMs ? [h('dt', {}, 'Wall time'), h('dd', { class: 'num' }, duration(u.wallTimeMs))] : null,
    ),
    budgetLine(budget ?? {}, defaults),
    contractLine(contract),
  );
}
