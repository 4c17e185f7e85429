// A plan waiting for a person: Start, Modify (with a note), or Cancel.
import { button, h } from './dom.js';

/** Null unless the running operation's plan waits for confirmation. */
export function renderPlanDecision(op, { onStart, onModify, onCancel }) {
  if (op.status !== 'running' || op.cancelRequested || op.planConfirmation?.state !== 'pending') return null;
  const note = h('textarea', {
    id: 'plan-note',
    rows: '2',
    maxlength: '4000',
    placeholder: 'For Modify: what should change in the plan?',
  });
  const modify = button(
    'Modify',
    () => {
      const value = note.value.trim();
      if (!value) {
        note.setAttribute('aria-invalid', 'true');
        return note.focus();
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
    h('label', { for: 'plan-note' }, 'Note for Modify'),
    note,
    h(
      'div',
      { class: 'row' },
      button('Start', () => onStart(), 'primary', { id: 'plan-start' }),
      modify,
      button('Cancel', () => onCancel(), 'danger-outline', { id: 'plan-cancel' }),
    ),
  );
}
