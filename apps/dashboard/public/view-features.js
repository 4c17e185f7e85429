// Feature requests (#/features, #/features/<id>): capture, the model's analysis, triage and
// "Implement". Everything goes through the same REST routes an API client uses; the server
// records the signed-in user as the one who acts.
import { ApiError, api } from './api.js';
import { age, button, fill, h, notice, sourceBadge } from './dom.js';

const STATUS_LABELS = {
  new: 'Analysing',
  analyzed: 'Analysed',
  analysis_failed: 'Analysis failed',
  accepted: 'Accepted',
  declined: 'Declined',
  implementing: 'Implementing',
  merged: 'Merged, deploying',
  released: 'Released',
};
const PRIORITIES = ['low', 'medium', 'high', 'critical'];
/** The analysis runs in a worker: the view asks again this often while anything is moving. */
const REFRESH_MS = 3000;

function badge(status) {
  return h(
    'span',
    { class: `status feature-status feature-${status}`, dataset: { status } },
    STATUS_LABELS[status] ?? status,
  );
}

function errorText(err) {
  if (err instanceof ApiError && err.fields?.length) return err.fields.map((f) => `${f.field}: ${f.reason}`).join('; ');
  return err.message;
}

function captureForm(session, onCreated) {
  const repo = h('input', {
    id: 'feature-repo',
    name: 'repo',
    placeholder: session.defaultRepo ?? 'owner/name',
    required: !session.defaultRepo,
    spellcheck: 'false',
    autocomplete: 'off',
  });
  const description = h('textarea', {
    id: 'feature-description',
    name: 'description',
    rows: '3',
    required: true,
    placeholder: 'Rate-limit the public endpoints per API key',
  });
  const error = h('p', { class: 'field-error', id: 'feature-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'btn primary', id: 'feature-submit' }, 'Capture request');
  const form = h(
    'form',
    { class: 'card', id: 'feature-form' },
    h('h2', { class: 'card-title' }, 'New feature request'),
    h('div', { class: 'field' }, h('label', { for: 'feature-repo' }, 'Repository'), repo),
    h('div', { class: 'field' }, h('label', { for: 'feature-description' }, 'What would you like?'), description),
    error,
    h('div', { class: 'form-actions' }, submit),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    error.textContent = '';
    try {
      const created = await api('POST', '/v1/feature-requests', {
        ...(repo.value.trim() ? { repo: repo.value.trim() } : {}),
        description: description.value,
      });
      description.value = '';
      onCreated(created.id);
    } catch (err) {
      error.textContent = errorText(err);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

function row(request) {
  const href = `#/features/${request.id}`;
  return h(
    'tr',
    { dataset: { id: request.id } },
    h('td', { class: 'cell' }, badge(request.status)),
    h('td', { class: 'cell' }, h('a', { href, class: 'op-link' }, request.title)),
    h('td', { class: 'cell' }, request.repo),
    h('td', { class: 'cell' }, request.priority),
    h('td', { class: 'cell' }, sourceBadge(request.requester)),
    h('td', { class: 'cell', title: request.createdAt }, age(request.createdAt)),
  );
}

function listSection(requests) {
  if (requests.length === 0)
    return notice('empty', 'No feature requests yet', 'Capture one above, or with /feature in Slack.');
  return h(
    'table',
    { class: 'ops-table', id: 'feature-list' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Status', 'Request', 'Repository', 'Priority', 'Requested by', 'Age'].map((t) => h('th', {}, t)),
      ),
    ),
    h('tbody', {}, requests.map(row)),
  );
}

/** Triage: the criteria (one per line) and the priority a person may adjust before deciding. */
function triageCard(request, act) {
  const criteria = h('textarea', {
    id: 'feature-criteria',
    rows: String(Math.max(3, request.acceptanceCriteria.length + 1)),
  });
  criteria.value = request.acceptanceCriteria.join('\n');
  const priority = h(
    'select',
    { id: 'feature-priority' },
    PRIORITIES.map((p) => h('option', { value: p, selected: p === request.priority }, p)),
  );
  const decide = (decision) => () =>
    act('triage', {
      decision,
      priority: priority.value,
      acceptanceCriteria: criteria.value
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    });
  return h(
    'section',
    { class: 'card', id: 'feature-triage' },
    h('h2', { class: 'card-title' }, 'Triage'),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'feature-criteria' }, 'Acceptance criteria (one per line)'),
      criteria,
    ),
    h('div', { class: 'field' }, h('label', { for: 'feature-priority' }, 'Priority'), priority),
    h(
      'div',
      { class: 'form-actions' },
      button('Accept', decide('accepted'), 'primary', { id: 'feature-accept' }),
      button('Decline', decide('declined'), 'danger-outline', { id: 'feature-decline' }),
    ),
  );
}

function detail(request, act) {
  const a = request.analysis;
  const canTriage = ['analyzed', 'accepted', 'declined'].includes(request.status);
  const canImplement = ['analyzed', 'accepted', 'implementing'].includes(request.status);
  return [
    h('a', { href: '#/features', class: 'back' }, '← Feature requests'),
    h('h1', { id: 'feature-title' }, request.title, ' ', badge(request.status)),
    h(
      'section',
      { class: 'card' },
      h('p', {}, request.repo, ' · ', request.priority, ' · ', sourceBadge(request.requester)),
      h('pre', { class: 'feature-description' }, request.description),
    ),
    request.analysisError ? notice('error', 'The analysis failed', request.analysisError) : null,
    a
      ? h(
          'section',
          { class: 'card', id: 'feature-analysis' },
          h('h2', { class: 'card-title' }, 'Analysis'),
          h('p', {}, a.intent),
          a.affectedModules.length
            ? h(
                'p',
                {},
                'Affected: ',
                a.affectedModules.map((m) => h('code', {}, m, ' ')),
              )
            : null,
          h(
            'ul',
            { id: 'feature-criteria-list' },
            request.acceptanceCriteria.map((c) => h('li', {}, c)),
          ),
        )
      : null,
    request.triage
      ? h(
          'p',
          { class: 'muted' },
          `${request.triage.decision} by ${request.triage.by}`,
          request.triage.reason ? `: ${request.triage.reason}` : '',
        )
      : null,
    canTriage ? triageCard(request, act) : null,
    h(
      'div',
      { class: 'form-actions' },
      canImplement ? button('Implement', () => act('implement', {}), 'primary', { id: 'feature-implement' }) : null,
      ['analysis_failed', 'analyzed'].includes(request.status)
        ? button('Analyse again', () => act('analyze', {}), '', { id: 'feature-analyze' })
        : null,
      request.operationId
        ? h('a', { href: `#/op/${request.operationId}`, class: 'btn', id: 'feature-operation' }, 'Operation')
        : null,
      request.pullRequest
        ? h(
            'a',
            { href: request.pullRequest.url, class: 'btn', id: 'feature-pr', rel: 'noopener' },
            `PR #${request.pullRequest.number}`,
          )
        : null,
    ),
    h('p', { class: 'field-error', id: 'feature-action-error', role: 'alert' }),
  ];
}

/** The list with the capture form, or one request's detail when `id` is given. */
export function featuresView(root, session, id) {
  let timer;
  let stopped = false;
  const schedule = (fn) => {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(fn, REFRESH_MS);
  };

  async function showList() {
    document.title = 'Feature requests · Pullwright';
    const form = captureForm(session, (created) => {
      location.hash = `#/features/${created}`;
    });
    const list = h('div', { id: 'features' }, notice('loading', 'Loading feature requests…'));
    fill(root, h('h1', {}, 'Feature requests'), form, list);
    const refresh = async () => {
      try {
        const { featureRequests } = await api('GET', '/v1/feature-requests?limit=200');
        fill(list, listSection(featureRequests));
      } catch (err) {
        fill(list, notice('error', 'Feature requests could not be loaded', errorText(err)));
      }
      schedule(refresh);
    };
    await refresh();
  }

  async function showOne() {
    const act = async (action, body) => {
      const error = document.getElementById('feature-action-error');
      if (error) error.textContent = '';
      try {
        const answer = await api('POST', `/v1/feature-requests/${id}/${action}`, body);
        if (action === 'implement') location.hash = `#/op/${answer.operation.id}`;
        else await refresh(true);
      } catch (err) {
        const target = document.getElementById('feature-action-error');
        if (target) target.textContent = errorText(err);
      }
    };
    const refresh = async (force = false) => {
      try {
        const request = await api('GET', `/v1/feature-requests/${id}`);
        document.title = `${request.title} · Pullwright`;
        // Keep what a person is typing: a timed redraw waits while a triage field has focus.
        const focused = document.activeElement;
        const typing = root.contains(focused) && ['TEXTAREA', 'SELECT', 'INPUT'].includes(focused.tagName);
        if (force || !typing) fill(root, detail(request, act));
        if (!['released', 'declined'].includes(request.status)) schedule(refresh);
      } catch (err) {
        fill(root, notice('error', 'This feature request could not be loaded', errorText(err)));
      }
    };
    await refresh();
  }

  void (id ? showOne() : showList());
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
