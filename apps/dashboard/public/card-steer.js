// Steering from the dashboard: a message to the running model, or a change request once the PR is open.
import { button, h, noteBox } from './dom.js';

/** @import { Operation } from '@pullwright/core' */
/** @typedef {(text: string, clear: () => void) => void} Send */

const RUNNING = new Set(['queued', 'running']);
const REVISABLE = new Set(['awaiting_approval', 'approved']);

/** @param {Send} onSend */
function box(id, label, placeholder, action, actionId, onSend) {
  const note = noteBox(id, label, { rows: 3, maxlength: 10_000, placeholder });
  const text = note.text;
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
  return h('div', { class: 'steer-form' }, note.label, text, h('div', { class: 'row' }, send));
}

/**
 * The box for what the operation is doing now: while it runs, `onMessage(text, clear)` (the
 * model reads it before its next step); with its PR open, `onRevise(text, clear)` (a
 * revision, answered in the ledger). Nothing once it has ended.
 * @param {Pick<Operation, 'status' | 'cancelRequested' | 'pullRequest'>} op
 * @param {{ onMessage: Send, onRevise: Send }} on
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
