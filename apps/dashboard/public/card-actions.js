// The header's buttons: approve or reject the head on screen, cancel, retry; and the reject form.
import { button, h, noteBox, shortSha } from './dom.js';

/** @import { Operation } from '@pullwright/core' */

/**
 * @typedef {object} ActionsView
 * @property {string | undefined} shownSha  The head whose changes the page has shown: what an approval is for.
 * @property {string | undefined} rejecting  The head the reject form was opened for: the form
 *   stays open while that head awaits approval.
 * @property {boolean} canApprove  The signed-in user is on the approver list.
 * @property {string} user
 * @typedef {object} ActionHandlers
 * @property {(sha: string) => void} onApprove
 * @property {() => void} onOpenReject
 * @property {(reason: string) => void} onReject  The reason trimmed; '' when none was given.
 * @property {() => void} onKeep  Closes the reject form.
 * @property {() => void} onCancel
 * @property {() => void} onRetry
 * @property {() => void} onShowChanges  Shows the head the branch moved to.
 */

/** @param {ActionHandlers} on */
function rejectForm(on) {
  const reason = noteBox('reject-reason', 'Reason for rejecting', {
    rows: 3,
    maxlength: 2000,
    placeholder: 'What should change? (optional)',
  });
  return h(
    'div',
    { class: 'reject-form' },
    reason.label,
    reason.text,
    h(
      'div',
      { class: 'row' },
      button('Reject', () => on.onReject(reason.text.value.trim()), 'danger', { id: 'reject-confirm' }),
      button('Keep it', () => on.onKeep(), 'ghost'),
    ),
  );
}

/**
 * @param {Operation} op
 * @param {ActionsView} view
 * @param {ActionHandlers} on
 */
function actionButtons(op, view, on) {
  const head = op.pullRequest?.headSha;
  const parts = [];
  if (op.status === 'awaiting_approval' && head) {
    const { shownSha } = view;
    if (shownSha && shownSha !== head) {
      parts.push(
        h(
          'p',
          { class: 'warn-text' },
          `The branch moved to ${shortSha(head)} since you looked at ${shortSha(shownSha)}. `,
          button('Show the new changes', () => on.onShowChanges(), 'small'),
        ),
      );
    }
    const sha = shownSha ?? head;
    const locked = !view.canApprove;
    parts.push(
      button(`Approve ${shortSha(sha)}`, () => on.onApprove(sha), 'primary', {
        id: 'approve',
        dataset: { sha },
        disabled: locked,
      }),
      button('Reject…', () => on.onOpenReject(), 'danger-outline', { id: 'reject', disabled: locked }),
      locked ? h('p', { class: 'muted small' }, `${view.user} is not on the approver list.`) : null,
    );
  }
  if (op.status === 'queued' || op.status === 'running') {
    parts.push(
      button(op.cancelRequested ? 'Cancelling…' : 'Cancel', () => on.onCancel(), 'danger-outline', {
        id: 'cancel',
        disabled: op.cancelRequested,
      }),
    );
  }
  if (op.status === 'failed' || op.status === 'cancelled') {
    parts.push(button('Retry', () => on.onRetry(), 'primary', { id: 'retry' }));
  }
  return parts.filter(Boolean);
}

/**
 * The `#actions` block, hidden when the operation offers no action.
 * @param {Operation} op
 * @param {ActionsView} view
 * @param {ActionHandlers} on
 */
export function renderActions(op, view, on) {
  const rejecting =
    view.rejecting !== undefined && op.status === 'awaiting_approval' && view.rejecting === op.pullRequest?.headSha;
  const parts = rejecting ? [rejectForm(on)] : actionButtons(op, view, on);
  return h('div', { class: 'actions', id: 'actions', hidden: parts.length === 0 }, parts);
}
