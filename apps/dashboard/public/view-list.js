// The operations list: filters, live updates from /v1/events, and queue health.
import { api } from './api.js';
import { age, button, coalesced, cost, fill, h, notice, STATUS_LABELS, sourceBadge, statusBadge } from './dom.js';
import { liveStream } from './live-stream.js';
import { queueHealth } from './queue-health.js';

const REPO = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/;

function firstLine(text) {
  return text.split('\n')[0];
}

function row(op, now) {
  const href = `#/op/${op.id}`;
  const pr = op.pullRequest
    ? h(
        'a',
        { href: op.pullRequest.url, target: '_blank', rel: 'noopener noreferrer', class: 'pr-link' },
        `#${op.pullRequest.number}`,
      )
    : h('span', { class: 'muted' }, '—');
  const tr = h(
    'tr',
    { dataset: { id: op.id, status: op.status }, class: 'op-row' },
    h('td', { class: 'cell col-status' }, statusBadge(op.status)),
    h(
      'td',
      { class: 'cell col-op' },
      h('a', { href, class: 'op-link' }, firstLine(op.description)),
      h('span', { class: 'op-sub' }, h('span', { class: `type type-${op.type}` }, op.type), ' ', h('code', {}, op.id)),
      op.status === 'failed' && op.error ? h('span', { class: 'op-error' }, firstLine(op.error)) : null,
    ),
    h('td', { class: 'cell col-repo' }, h('span', { class: 'repo' }, op.repo)),
    h('td', { class: 'cell col-requester' }, sourceBadge(op.requester)),
    h('td', { class: 'cell col-age', title: new Date(op.createdAt).toLocaleString() }, age(op.createdAt, now)),
    h('td', { class: 'cell col-pr' }, pr),
    h('td', { class: 'cell col-cost num' }, cost(op.usage.costUsd)),
  );
  tr.addEventListener('click', (e) => {
    if (e.target.closest('a')) return;
    location.hash = href;
  });
  return tr;
}

export function listView(root, _session, params) {
  document.title = 'Operations · Pullwright';
  const filter = { status: params.get('status') ?? '', repo: params.get('repo') ?? '' };
  const healthEl = h('section', { class: 'health' });
  const refreshHealth = queueHealth(healthEl);

  const statusSelect = h(
    'select',
    { id: 'filter-status', name: 'status', 'aria-label': 'Status' },
    h('option', { value: '' }, 'All statuses'),
    Object.entries(STATUS_LABELS).map(([value, label]) => h('option', { value }, label)),
  );
  statusSelect.value = filter.status;
  const repoInput = h('input', {
    id: 'filter-repo',
    name: 'repo',
    type: 'search',
    placeholder: 'owner/name',
    list: 'repo-options',
    'aria-label': 'Repository',
    value: filter.repo,
    autocomplete: 'off',
  });
  const repoOptions = h('datalist', { id: 'repo-options' });
  const repoHint = h('span', { class: 'field-hint', role: 'status' });
  const clear = button('Clear filters', () => applyFilter({ status: '', repo: '' }), 'ghost small');
  const count = h('span', { class: 'muted count' });
  const filters = h(
    'form',
    { class: 'filters', role: 'search', onsubmit: (e) => e.preventDefault() },
    h('label', { class: 'filter' }, h('span', {}, 'Status'), statusSelect),
    h('label', { class: 'filter' }, h('span', {}, 'Repository'), repoInput, repoOptions),
    repoHint,
    clear,
    h('span', { class: 'spacer' }),
    count,
  );

  const list = h('div', { class: 'ops', id: 'operations', 'aria-live': 'polite' });
  list.append(notice('loading', 'Loading operations…'));
  root.append(
    h('div', { class: 'page' }, h('div', { class: 'page-head' }, h('h1', {}, 'Operations')), healthEl, filters, list),
  );

  let operations = null;
  const knownRepos = new Set();

  function renderRows() {
    clear.hidden = !filter.status && !filter.repo;
    if (!operations) return;
    count.textContent = operations.length ? `${operations.length} shown` : '';
    for (const op of operations) knownRepos.add(op.repo);
    fill(repoOptions, ...[...knownRepos].sort().map((r) => h('option', { value: r })));
    if (operations.length === 0) {
      fill(
        list,
        filter.status || filter.repo
          ? notice(
              'empty',
              'No operations match these filters',
              'Try another status or repository.',
              button('Clear filters', () => applyFilter({ status: '', repo: '' }), 'ghost'),
            )
          : notice(
              'empty',
              'No operations yet',
              'Start one here, with /debug or /implement in Slack, or with POST /v1/operations.',
              h('a', { href: '#/new', class: 'btn primary' }, 'New operation'),
            ),
      );
      return;
    }
    const now = Date.now();
    fill(
      list,
      h(
        'table',
        { class: 'ops-table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { class: 'col-status' }, 'Status'),
            h('th', { class: 'col-op' }, 'Operation'),
            h('th', { class: 'col-repo' }, 'Repository'),
            h('th', { class: 'col-requester' }, 'Requested by'),
            h('th', { class: 'col-age' }, 'Age'),
            h('th', { class: 'col-pr' }, 'PR'),
            h('th', { class: 'col-cost num' }, 'Cost'),
          ),
        ),
        h(
          'tbody',
          {},
          operations.map((op) => row(op, now)),
        ),
      ),
    );
  }

  const load = coalesced(async () => {
    const query = new URLSearchParams({ limit: '100' });
    if (filter.status) query.set('status', filter.status);
    if (filter.repo) query.set('repo', filter.repo);
    try {
      operations = (await api('GET', `/v1/operations?${query}`)).operations;
      renderRows();
    } catch (err) {
      if (err.status !== 401) {
        fill(list, notice('error', 'Operations could not be loaded', err.message, button('Try again', load)));
      }
    }
  });

  function applyFilter(next) {
    Object.assign(filter, next);
    statusSelect.value = filter.status;
    repoInput.value = filter.repo;
    repoHint.textContent = '';
    const query = new URLSearchParams();
    if (filter.status) query.set('status', filter.status);
    if (filter.repo) query.set('repo', filter.repo);
    // replaceState: no hashchange, so the live stream stays open while filters change.
    history.replaceState(null, '', `#/${query.size ? `?${query}` : ''}`);
    fill(list, notice('loading', 'Loading operations…'));
    load();
  }
  statusSelect.addEventListener('change', () => applyFilter({ status: statusSelect.value }));
  repoInput.addEventListener('change', () => {
    const value = repoInput.value.trim();
    if (value && !REPO.test(value)) {
      repoHint.textContent = 'Use owner/name';
      return;
    }
    applyFilter({ repo: value });
  });

  let timer;
  let healthTimer;
  const scheduleLoad = () => {
    clearTimeout(timer);
    timer = setTimeout(load, 250);
    clearTimeout(healthTimer);
    healthTimer = setTimeout(refreshHealth, 1000);
  };

  const stopStream = liveStream({
    url: () => '/v1/events',
    event: 'feed',
    onEvent: scheduleLoad,
    liveOn: 'ready',
    // Whatever happened while (re)connecting is in the list we load now.
    onLive: scheduleLoad,
  });
  load();
  const ticker = setInterval(() => {
    renderRows();
    refreshHealth();
  }, 15_000);

  return () => {
    stopStream();
    clearTimeout(timer);
    clearTimeout(healthTimer);
    clearInterval(ticker);
  };
}
