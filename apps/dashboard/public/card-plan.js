// The plan: its steps as the planner wrote them, and, while it waits for a person, Start, Modify (with a note) or Cancel.
import { button, h, noteBox, titledBullets } from './dom.js';

/** @import { Operation, Plan } from '@pullwright/core' */

/** @param {Plan} plan */
export function renderPlan(plan) {
  return h(
    'div',
    {},
    plan.plan_id ? h('p', { class: 'muted small' }, h('code', {}, plan.plan_id)) : null,
    h(
      'ol',
      { class: 'plan-steps' },
      plan.steps.map((step) =>
        h(
          'li',
          { dataset: { task: step.id ?? '' } },
          h('strong', {}, step.id ? `${step.id} · ${step.title}` : step.title),
          step.files.length
            ? h(
                'span',
                { class: 'plan-files' },
                step.files.map((f) => h('code', {}, f)),
              )
            : null,
          h('p', { class: 'muted small' }, `Done when: ${step.acceptance}`),
        ),
      ),
    ),
    titledBullets('Risks noted', plan.risks),
  );
}

/**
 * Null unless the running operation's plan waits for confirmation.
 * @param {Pick<Operation, 'status' | 'cancelRequested' | 'planConfirmation'>} op
 * @param {{ onStart: () => void, onModify: (note: string) => void, onCancel: () => void }} on
 */
export function renderPlanDecision(op, { onStart, onModify, onCancel }) {
  if (op.status !== 'running' || op.cancelRequested || op.planConfirmation?.state !== 'pending') return null;
  const note = noteBox('plan-note', 'Note for Modify', {
    rows: 2,
    maxlength: 4000,
    placeholder: 'For Modify: what should change in the plan?',
  });
  const modify = button(
    'Modify',
    () => {
      const value = note.text.value.trim();
      if (!value) {
        note.text.setAttribute('aria-invalid', 'true');
        return note.text.focus();
      }
      onModify(value);
    },
    '',
    { id: 'plan-modify' },
  );
  return h(
    'div',
    { class: 'plan-decision', id: 'plan-decision' },
    h('p', { class: 'warn-text' }, 'The plan is waiting for you: the coder starts once someone presses Start.'),
    note.label,
    note.text,
    h(
      'div',
      { class: 'row' },
      button('Start', () => onStart(), 'primary', { id: 'plan-start' }),
      modify,
      button('Cancel', () => onCancel(), 'danger-outline', { id: 'plan-cancel' }),
    ),
  );
}
