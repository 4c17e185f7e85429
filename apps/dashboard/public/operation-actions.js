// What a person can do on the operation page: each request disables the buttons, flashes its
// outcome and re-reads the record; a failure redraws the buttons and says why.
import { api } from './api.js';

/** @import { ActionHandlers } from './card-actions.js' */
/** @import { OperationStore } from './operation-store.js' */

/**
 * @typedef {object} ActionPage
 * @property {OperationStore} store
 * @property {(kind?: 'good' | 'bad', text?: string) => void} flash  Without arguments: clears the flash.
 * @property {() => HTMLElement} actions  The header's action block, whose buttons a request disables.
 * @property {() => Promise<void>} refresh  Re-reads the record.
 * @property {() => void} showChanges  Shows the Changes tab, reloaded.
 */

/**
 * The handlers of the header's buttons, the plan and budget decisions, the steering box and the deploy button.
 * @param {string} id
 * @param {ActionPage} page
 */
export function operationActions(id, page) {
  /** @param {string} label @param {() => Promise<any>} request @param {(result: any) => void} [after] */
  async function act(label, request, after) {
    page.flash();
    for (const b of page.actions().querySelectorAll('button')) b.disabled = true;
    try {
      const result = await request();
      page.flash('good', label);
      if (after) after(result);
      await page.refresh();
    } catch (err) {
      const moved = err.status === 409 && /moved/.test(err.message);
      page.flash('bad', moved ? `${err.message}. Review the new changes before approving.` : err.message);
      page.store.set({ rejecting: undefined, failedActions: page.store.get().failedActions + 1 });
    }
  }
  /** @param {string} path @param {object} body */
  const post = (path, body) => api('POST', `/v1/operations/${id}/${path}`, body);
  /** @param {string} path @param {object} body @param {string} done */
  const by = (path, body, done) => act(done, () => post(path, body));
  /**
   * A request from a text box: the box is cleared once the server took it.
   * @param {string} path @param {string} field @param {string} done
   * @returns {import('./card-steer.js').Send}
   */
  const fromBox = (path, field, done) => (text, clear) =>
    act(done, async () => {
      await post(path, { [field]: text });
      clear();
    });

  /** @type {ActionHandlers} */
  const header = {
    onApprove: (sha) => by('approve', { headSha: sha }, 'Approved. Merging…'),
    onOpenReject: () => page.store.set({ rejecting: page.store.get().op?.pullRequest?.headSha }),
    onReject: (reason) => by('reject', reason ? { reason } : {}, 'Rejected.'),
    onKeep: () => page.store.set({ rejecting: undefined }),
    onCancel: () => by('cancel', {}, 'Cancel requested.'),
    onRetry: () =>
      act(
        'Retry started.',
        () => post('retry', {}),
        (created) => {
          location.hash = `#/op/${created.id}`;
        },
      ),
    onShowChanges: page.showChanges,
  };
  return {
    header,
    plan: {
      onStart: () => by('plan', { decision: 'start' }, 'Plan started: the coder is working.'),
      onModify: (/** @type {string} */ note) =>
        by('plan', { decision: 'modify', note }, 'Plan modified: the coder works with your note.'),
      onCancel: () => by('cancel', {}, 'Cancel requested.'),
    },
    budget: {
      onExtend: (/** @type {number} */ amount) =>
        by('budget', { action: 'extend', amount }, 'Budget extended: the operation goes on.'),
      onStop: () => by('budget', { action: 'stop' }, 'Stopping: the work so far is kept.'),
    },
    steer: {
      onMessage: fromBox('messages', 'text', 'Sent: the model reads it before its next step.'),
      onRevise: fromBox('revise', 'instruction', 'Changes requested: a revision is on its way.'),
    },
    deploy: { onDeploy: () => by('deploy', {}, 'Deploy started.') },
  };
}
