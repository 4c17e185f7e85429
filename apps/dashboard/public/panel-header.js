// The operation's header card: status and title, the action buttons, the plan decision, steering and deploy.
import { renderActions } from './card-actions.js';
import { renderBudgetDecision } from './card-budget.js';
import { renderDeploy } from './card-deploy.js';
import { renderPlanDecision } from './card-plan.js';
import { renderStatus } from './card-status.js';
import { renderSteer } from './card-steer.js';
import { fill, h } from './dom.js';

/** @import { Session } from './api.js' */
/** @import { operationActions } from './operation-actions.js' */
/** @import { OperationStore } from './operation-store.js' */

/**
 * @param {OperationStore} store
 * @param {Session} session
 * @param {ReturnType<typeof operationActions>} handlers
 */
export function headerPanel(store, session, handlers) {
  const slots = {
    status: h('div', { class: 'op-header-main' }),
    actions: h('div', { class: 'actions', id: 'actions' }),
  };
  const plan = h('div', { id: 'plan-slot' });
  const budget = h('div', { id: 'budget-slot' });
  const steer = h('div', { id: 'steer', class: 'steer' });
  const deploy = h('div', { id: 'deploy-slot' });
  // The header lays these out itself (flex items): each render replaces its predecessor.
  const swap = (/** @type {keyof typeof slots} */ name, /** @type {HTMLElement} */ next) => {
    slots[name].replaceWith(next);
    slots[name] = next;
  };

  store.watch(
    ['op'],
    (s) => swap('status', renderStatus(s.op)),
    (s) => String(s.op.version),
  );
  store.watch(
    ['op', 'shownSha', 'rejecting', 'failedActions'],
    (s) => {
      const view = { ...s, canApprove: session.canApprove, user: session.user };
      swap('actions', renderActions(s.op, view, handlers.header));
      if (s.rejecting) document.getElementById('reject-reason')?.focus();
    },
    (s) => {
      const { status, pullRequest, cancelRequested } = s.op;
      return [status, pullRequest?.headSha, s.shownSha, cancelRequested, s.rejecting, s.failedActions].join('|');
    },
  );
  // Redrawn only when what they offer changes: a redraw would drop a note being typed.
  store.watch(
    ['op'],
    (s) => {
      fill(plan, renderPlanDecision(s.op, handlers.plan));
      fill(budget, renderBudgetDecision(s.op, handlers.budget));
      fill(steer, renderSteer(s.op, handlers.steer));
      fill(deploy, renderDeploy(s.op, handlers.deploy));
    },
    (s) => {
      const { status, cancelRequested, pullRequest, planConfirmation, deploy, budgetContract } = s.op;
      const pause = budgetContract?.pause;
      return [
        status,
        cancelRequested,
        pullRequest?.number,
        planConfirmation?.state,
        deploy?.status,
        pause?.state,
        pause?.limitUsd,
      ].join('|');
    },
  );

  return {
    element: h('header', { class: 'op-header card' }, slots.status, slots.actions, plan, budget, steer, deploy),
    /** The action block on the page now (a request disables its buttons). */
    actions: () => slots.actions,
  };
}
