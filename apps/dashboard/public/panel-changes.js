// The Changes tab: the diff bar, the review ledger and the diff (the whole PR or an interdiff), loaded on demand.
import { api } from './api.js';
import { renderDiffBar } from './card-diff.js';
import { renderLedger } from './card-ledger.js';
import { diffLoading, renderDiff } from './diff-view.js';
import { button, card, fill, h, notice } from './dom.js';

/** @import { Operation } from '@pullwright/core' */
/** @import { OperationStore } from './operation-store.js' */

/**
 * @param {string} id
 * @param {OperationStore} store
 */
export function changesPanel(id, store) {
  const bar = h('div');
  const ledger = h('div', { id: 'op-ledger' });
  const body = h('div', { id: 'diff-body' });
  const op = () => /** @type {Operation} */ (store.get().op);

  /** @param {string | null} from */
  function showSince(from) {
    store.set({ since: from });
    load(true);
  }

  store.watch(
    ['op', 'since'],
    (s) => {
      fill(bar, renderDiffBar(op(), s.since, showSince));
      fill(
        ledger,
        op().ledger?.length ? card('Review ledger', 'ledger-card', renderLedger(op().ledger, showSince)) : null,
      );
    },
    (s) => JSON.stringify([s.since, s.op?.pullRequest?.headSha, s.op?.approvals, s.op?.ledger]),
  );

  let loadedKey = '';
  /** Loads the diff unless the one on screen is for the same head and base (or `force`). */
  async function load(force = false) {
    const { since } = store.get();
    const key = `${op().pullRequest?.headSha ?? null}|${since}`;
    if (!force && loadedKey === key && body.childElementCount) return;
    loadedKey = key;
    diffLoading(body);
    try {
      const diff = since
        ? await api('GET', `/v1/operations/${id}/interdiff?from=${since}`)
        : await api('GET', `/v1/operations/${id}/diff`);
      if (since) {
        diff.headSha = diff.to;
        diff.since = diff.from;
      }
      store.set({ diffSha: diff.headSha, ...(diff.headSha ? { shownSha: diff.headSha } : {}) });
      renderDiff(body, diff, op());
    } catch (err) {
      fill(
        body,
        notice(
          'error',
          'The diff could not be loaded',
          err.message,
          button('Try again', () => load(true)),
        ),
      );
    }
  }

  return { element: h('div', { class: 'panel', id: 'diff', role: 'tabpanel', hidden: true }, bar, ledger, body), load };
}
