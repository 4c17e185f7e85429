// One operation: the page's layout and its data flow. Panels and cards draw what the store holds;
// this view loads the record, follows its event stream and decides what to load when.
import { api } from './api.js';
import { button, coalesced, fill, h, notice, STATUS_LABELS } from './dom.js';
import { liveStream } from './live-stream.js';
import { operationActions } from './operation-actions.js';
import { initialOperationState, operationStore } from './operation-store.js';
import { changesPanel } from './panel-changes.js';
import { headerPanel } from './panel-header.js';
import { overviewKey, renderOverview } from './panel-overview.js';
import { sidePanel } from './panel-side.js';
import { transcriptPanel } from './panel-transcript.js';
import { runRecordPanel } from './run-record.js';
import { CHANGES_RECORD } from './timeline.js';

/** @import { Operation } from '@pullwright/core' */
/** @import { Session } from './api.js' */
/** @import { Tab } from './operation-store.js' */

const ENDED = ['merged', 'failed', 'cancelled', 'rejected', 'evaluated'];
/** @type {Record<Tab, (files: number) => string>} */
const TAB_LABELS = {
  overview: () => 'Overview',
  changes: (files) => (files ? `Changes (${files})` : 'Changes'),
  transcript: () => 'Transcript',
};

/**
 * @param {HTMLElement} root
 * @param {string} id
 * @param {Session} session
 * @returns {() => void} Closes the page: stops the stream and the timers.
 */
export function operationView(root, id, session, params = new URLSearchParams()) {
  document.title = `Operation ${id} · Pullwright`;
  fill(root, notice('loading', 'Loading the operation…'));
  const store = operationStore(initialOperationState(params));
  /** The record once loaded (every caller runs after the first read). */
  const op = () => /** @type {Operation} */ (store.get().op);
  const seen = new Set();
  let closed = false;
  const record = runRecordPanel(id);
  const flashBox = h('div', { class: 'flash', role: 'status', 'aria-live': 'polite' });
  /** Without arguments: clears the flash. @param {'good' | 'bad'} [kind] @param {string} [text] */
  const flash = (kind, text) => fill(flashBox, kind ? h('p', { class: `flash-${kind}` }, text) : null);
  const handlers = operationActions(id, {
    store,
    flash,
    actions: () => header.actions(),
    refresh: () => refresh(),
    showChanges: () => showTab('changes', true),
  });
  const header = headerPanel(store, session, handlers);

  const tabs = h('div', { class: 'tabs', role: 'tablist' });
  const overview = h('div', { class: 'panel', id: 'panel-overview', role: 'tabpanel' });
  const changes = changesPanel(id, store);
  const transcript = transcriptPanel(id, op);
  store.watch(
    ['op', 'verification'],
    (s) => fill(overview, renderOverview(s.op, s.verification)),
    (s) => overviewKey(s.op, s.verification),
  );
  const side = sidePanel(store, session, record.element);
  /** @type {Partial<Record<Tab, HTMLElement>>} */
  const tabButtons = {};
  store.watch(['op', 'tab'], (s) => {
    for (const [name, label] of Object.entries(TAB_LABELS)) {
      const tab = /** @type {Tab} */ (name);
      tabButtons[tab] ??= button('', () => showTab(tab), '', { role: 'tab', id: `tab-${tab}`, class: 'tab' });
      tabButtons[tab].textContent = label(s.op.filesChanged.length);
      tabButtons[tab].setAttribute('aria-selected', String(s.tab === tab));
    }
    if (!tabs.childElementCount) tabs.append(...Object.values(tabButtons));
    overview.hidden = s.tab !== 'overview';
    changes.element.hidden = s.tab !== 'changes';
    transcript.element.hidden = s.tab !== 'transcript';
  });

  /** @param {Tab} name */
  function showTab(name, force = false) {
    store.set({ tab: name });
    if (name === 'changes') changes.load(force);
    if (name === 'transcript') transcript.load();
  }

  async function loadVerification() {
    if (!op().pullRequest) return;
    const verification = await api('GET', `/v1/operations/${id}/verification`).catch(() => null);
    store.set({ verification });
  }

  async function loadBoard() {
    const board = await api('GET', `/v1/board?repo=${encodeURIComponent(op().repo)}`).catch(() => null);
    store.set({ board });
  }

  /** @param {Operation} next */
  function update(next) {
    const { op: prev, shownSha, tab, diffSha, board } = store.get();
    // The first read is not a status change.
    const statusChanged = prev !== undefined && prev.status !== next.status;
    const head = next.pullRequest?.headSha;
    // Watching live counts as seeing it: the first head sha is the one on screen.
    const seenSha = prev === undefined || (!shownSha && tab !== 'changes') ? head : shownSha;
    store.set({ op: next, shownSha: seenSha });
    record.refresh();
    if (tab === 'changes' && head && diffSha === null) changes.load();
    if (statusChanged && board !== undefined) loadBoard();
    if (statusChanged && next.pullRequest) loadVerification();
    // A flash about the last action ("Approved. Merging…") is stale once the operation ended.
    if (statusChanged && ENDED.includes(next.status)) flash();
    document.title = `${STATUS_LABELS[next.status]} · ${next.description.split('\n')[0].slice(0, 60)} · Pullwright`;
  }

  const refresh = coalesced(async () => {
    try {
      const next = await api('GET', `/v1/operations/${id}`);
      if (!closed && next.version !== op().version) update(next);
    } catch (err) {
      if (err.status && err.status !== 401 && !closed) flash('bad', `Could not refresh: ${err.message}`);
    }
  });
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let refreshTimer;
  const scheduleRefresh = () => {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(refresh, 150);
  };

  let stopStream = () => {};
  function connect() {
    stopStream = liveStream({
      // Resumes after the last event this page holds (?after=), so nothing is lost or repeated.
      url: () => {
        const last = store.get().events.at(-1)?.id;
        return `/v1/operations/${id}/events${last ? `?after=${encodeURIComponent(last)}` : ''}`;
      },
      event: 'operation',
      onEvent: (e) => {
        if (seen.has(e.id)) return;
        seen.add(e.id);
        store.set({ events: [...store.get().events, e] });
        if (CHANGES_RECORD[e.type]) scheduleRefresh();
      },
    });
  }

  /** @param {{ status?: number, message: string }} err */
  function failedToLoad(err) {
    if (err.status === 404) {
      const all = h('a', { href: '#/', class: 'btn' }, 'All operations');
      return notice('empty', 'Operation not found', `There is no operation ${id}.`, all);
    }
    const retry = button('Try again', () => operationView(root, id, session));
    return notice('error', 'The operation could not be loaded', err.message, retry);
  }

  (async () => {
    let first;
    try {
      first = await api('GET', `/v1/operations/${id}`);
    } catch (err) {
      if (err.status !== 401) fill(root, failedToLoad(err));
      return;
    }
    if (closed) return;
    const main = h('div', { class: 'op-main' }, tabs, overview, changes.element, transcript.element);
    const back = h('a', { href: '#/', class: 'back' }, '← Operations');
    fill(
      root,
      h('div', { class: 'page' }, back, header.element, flashBox, h('div', { class: 'op-grid' }, main, side.element)),
    );
    update(first);
    // The first render is not a status change: load the verification block now (it used to
    // wait for the next status, so a freshly opened operation stayed on "Checking…").
    loadVerification();
    if (store.get().tab !== 'overview') showTab(store.get().tab);
    loadBoard();
    connect();
  })();

  const ticker = setInterval(() => store.get().op && side.tick(), 1000);
  return () => {
    closed = true;
    stopStream();
    clearTimeout(refreshTimer);
    clearInterval(ticker);
  };
}
