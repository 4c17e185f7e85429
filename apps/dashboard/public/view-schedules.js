// Schedules (#/schedules): every repository's `schedules:` with its last and next run and a
// Pause / Resume button, and the configured event sources with the last event each delivered
// (GET /v1/schedules). Schedules come from each repository's .pullwright.yml; "Reload" reads
// a repository's file again (POST /v1/schedules/sync).
import { api } from './api.js';
import { age, button, fill, h, notice } from './dom.js';

const when = (iso) =>
  iso ? h('span', { title: new Date(iso).toLocaleString() }, new Date(iso).toLocaleString()) : '—';

function lastRun(run) {
  return run ? h('span', {}, h('a', { href: `#/op/${run.opId}` }, run.opId), ` ${age(run.at)} ago`) : '—';
}

function scheduleRow(s, reload) {
  const state = s.refused ? `refused: ${s.refused}` : s.paused ? 'paused' : 'active';
  return h(
    'tr',
    { dataset: { schedule: `${s.repo}/${s.name}` } },
    h('td', {}, h('span', { class: 'repo' }, s.repo), ' ', h('strong', {}, s.name)),
    h('td', {}, h('code', {}, s.cron), ' UTC'),
    h('td', {}, `/${s.type} on `, h('code', {}, s.branch), h('div', { class: 'muted' }, s.description)),
    h('td', {}, state),
    h('td', {}, lastRun(s.lastRun)),
    h('td', {}, when(s.nextRunAt)),
    h(
      'td',
      {},
      s.refused
        ? null
        : button(
            s.paused ? 'Resume' : 'Pause',
            async () => {
              await api('POST', '/v1/schedules/pause', { repo: s.repo, name: s.name, paused: !s.paused });
              reload();
            },
            'small',
          ),
    ),
  );
}

function sourceRow(s) {
  return h(
    'tr',
    { dataset: { source: s.name } },
    h('td', {}, h('strong', {}, s.name), ` (${s.kind})`),
    h('td', {}, h('code', {}, `POST /v1/events/${s.name}`)),
    h('td', {}, `/${s.type} on ${s.repo}@${s.branch}`),
    h('td', {}, s.lastEvent ? [h('code', {}, s.lastEvent.eventId), ' → ', lastRun(s.lastEvent)] : '—'),
  );
}

const table = (headings, rows) =>
  h(
    'table',
    { class: 'ops-table' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headings.map((t) => h('th', {}, t)),
      ),
    ),
    h('tbody', {}, rows),
  );

export function schedulesView(root) {
  document.title = 'Schedules · Pullwright';
  let stopped = false;
  const load = async () => {
    try {
      const { schedules, sources } = await api('GET', '/v1/schedules');
      if (stopped) return;
      const repo = h('input', {
        type: 'text',
        placeholder: 'owner/name (default: DEFAULT_REPO)',
        'aria-label': 'Repository',
      });
      const problem = h('p', { class: 'muted', role: 'alert' });
      const sync = button('Reload .pullwright.yml', async () => {
        try {
          await api('POST', '/v1/schedules/sync', repo.value.trim() ? { repo: repo.value.trim() } : {});
          void load();
        } catch (err) {
          problem.textContent = err.message;
        }
      });
      fill(
        root,
        h('h1', {}, 'Schedules'),
        h('div', { class: 'schedules-toolbar' }, repo, sync),
        problem,
        schedules.length
          ? table(
              ['Schedule', 'Cron', 'Work', 'State', 'Last run', 'Next run', ''],
              schedules.map((s) => scheduleRow(s, load)),
            )
          : notice(
              'empty',
              'No schedules',
              'Add a schedules: entry to a repository’s .pullwright.yml, then reload it here.',
            ),
        h('h2', {}, 'Event sources'),
        sources.length
          ? table(['Source', 'Endpoint', 'Work', 'Last event'], sources.map(sourceRow))
          : notice('empty', 'No event sources', 'Configure EVENT_SOURCES on the API to accept signed events.'),
      );
    } catch (err) {
      if (!stopped) fill(root, notice('error', 'Schedules could not be loaded', err.message));
    }
  };
  fill(root, notice('loading', 'Loading schedules…'));
  void load();
  return () => {
    stopped = true;
  };
}
