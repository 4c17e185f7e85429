// What the operation page knows, in one place: changed only by `set`, followed by the parts that `watch` it.

/** @import { Operation, DescribedEvent } from '@pullwright/core' */
/** @import { Board } from './card-locks.js' */
/** @import { VerificationResult } from './card-verification.js' */

/**
 * @typedef {'overview' | 'changes' | 'transcript'} Tab
 * @typedef {object} OperationState
 * @property {Operation | undefined} op  The record as last read; undefined until the first read.
 * @property {DescribedEvent[]} events  Oldest first, each once.
 * @property {Tab} tab
 * @property {string | null} since  The Changes tab shows the whole PR (null) or the interdiff since this sha.
 * @property {string | undefined} shownSha  The head whose changes the page has shown: what an approval is for.
 * @property {string | null | undefined} diffSha  The head of the diff last loaded.
 * @property {Board | null | undefined} board  undefined while it loads, null when it failed.
 * @property {VerificationResult | null | undefined} verification  undefined while it loads, null when it failed.
 * @property {string | undefined} rejecting  The head the reject form is open for.
 * @property {number} failedActions  Counts failed actions: each failure redraws the buttons it disabled.
 */

/**
 * The state of a page opened at `#/op/<id>?tab=changes&from=<sha>`: the Changes tab and the
 * interdiff from `from` when the link asks for them.
 * @param {URLSearchParams} params
 * @returns {OperationState}
 */
export function initialOperationState(params) {
  const from = params.get('from') ?? '';
  return {
    op: undefined,
    events: [],
    tab: params.get('tab') === 'changes' ? 'changes' : 'overview',
    since: /^[0-9a-f]{7,64}$/.test(from) ? from : null,
    shownSha: undefined,
    diffSha: undefined,
    board: undefined,
    verification: undefined,
    rejecting: undefined,
    failedActions: 0,
  };
}

/**
 * @typedef {object} Watcher
 * @property {(keyof OperationState)[]} fields
 * @property {(state: OperationState) => string | undefined} key
 * @property {(state: OperationState) => void} render
 * @property {string | undefined} last
 */

/** @param {OperationState} initial */
export function operationStore(initial) {
  let state = initial;
  /** @type {Watcher[]} */
  const watchers = [];
  return {
    get: () => state,
    /**
     * Replaces the given fields; every watcher of a field that changed (by identity) runs, in
     * the order they were added.
     * @param {Partial<OperationState>} patch
     */
    set(patch) {
      const prev = state;
      state = { ...state, ...patch };
      for (const w of watchers) {
        if (!w.fields.some((f) => prev[f] !== state[f])) continue;
        const key = w.key(state);
        if (key !== undefined && key === w.last) continue;
        w.last = key;
        w.render(state);
      }
    },
    /**
     * Runs `render` after a change to one of `fields`; with `key`, only when the key (a string)
     * differs from the last render's: a redraw would drop what a person typed or opened.
     * @param {(keyof OperationState)[]} fields
     * @param {(state: OperationState) => void} render
     * @param {(state: OperationState) => string} [key]
     */
    watch(fields, render, key = () => undefined) {
      watchers.push({ fields, key, render, last: undefined });
    },
  };
}

/** @typedef {ReturnType<typeof operationStore>} OperationStore */
