// Steering from the dashboard: a message to the running model, or a change request once the PR is open.
import { button, h } from './dom.js';

const RUNNING = new Set(['queued', 'running']);
const REVISABLE = new Set(['awaiting_approval', 'approved']);

function box(id, label, placeholder, action, actionId, onSend) {
  const text = h('textarea', { id, rows: '3', maxlength: '10000', placeholder });
  const send = button(
    action,
    () => {
      const value = text.value.trim();
      if (!value) return text.focus();
      onSend(value, () => {
        text.value = '';
      });
    },
    'primary small',
    { id: actionId },
  );
  return h('div', { class: 'steer-form' }, h('label', { for: id }, label), text, h('div', { class: 'row' }, send));
}

/**
 * The box for what the operation is doing now: while it runs, `onMessage(text, clear)` (the
 * model reads it before its next step); with its PR open, `onRevise(text, clear)` (a
 * revision, answered in the ledger). Nothing once it has ended.
 */
export function renderSteer(op, { onMessage, onRevise }) {
  if (RUNNING.has(op.status) && !op.cancelRequested) {
    return box(
      'message-text',
      'Message to the model',
      'A hint, a correction, a file to look at…',
      'Send',
      'message-send',
      onMessage,
    );
  }
  if (REVISABLE.has(op.status) && op.pullRequest) {
    return box(
      'revise-text',
      'Request changes',
      'What should change? The model revises the same branch.',
      'Request changes',
      'revise-send',
      onRevise,
    );
  }
  return null;
}
