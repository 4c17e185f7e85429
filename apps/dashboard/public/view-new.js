// New operation: the same POST /v1/operations an API client uses; the server records the
// signed-in user as the requester and `dashboard` as the source.
import { api } from './api.js';
import { fill, h } from './dom.js';

const TYPES = {
  debug: 'Reproduce a failure, find the root cause, fix it and prove it with the tests.',
  implement: 'Build something new from a description and acceptance criteria.',
  fix: 'A small, well-understood correction.',
  refactor: 'Change the structure without changing behaviour; the checks must stay green.',
};

function field(id, label, control, hint) {
  return h(
    'div',
    { class: 'field', dataset: { field: id } },
    h('label', { for: `new-${id}` }, label),
    control,
    hint ? h('p', { class: 'field-hint' }, hint) : null,
    h('p', { class: 'field-error', id: `new-${id}-error`, role: 'alert' }),
  );
}

export function newOperationView(root, session, params) {
  document.title = 'New operation · Pullwright';
  // One key per form: a double click or a retried request creates one operation, not two.
  // (getRandomValues, not randomUUID: the latter is missing on plain-http LAN addresses.)
  const idempotencyKey = `dash-${Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')}`;
  const type = h(
    'select',
    { id: 'new-type', name: 'type' },
    Object.keys(TYPES).map((t) => h('option', { value: t }, t)),
  );
  const typeHint = h('p', { class: 'field-hint' });
  const syncType = () => {
    typeHint.textContent = TYPES[type.value];
  };
  type.value = TYPES[params.get('type')] ? params.get('type') : 'debug';
  type.addEventListener('change', syncType);
  syncType();
  const repo = h('input', {
    id: 'new-repo',
    name: 'repo',
    placeholder: session.defaultRepo ?? 'owner/name',
    list: 'new-repo-options',
    autocomplete: 'off',
    spellcheck: 'false',
    required: !session.defaultRepo,
    value: params.get('repo') ?? '',
  });
  const repoOptions = h('datalist', { id: 'new-repo-options' });
  const base = h('input', { id: 'new-baseBranch', name: 'baseBranch', value: 'main', spellcheck: 'false' });
  const description = h('textarea', {
    id: 'new-description',
    name: 'description',
    rows: '4',
    required: true,
    placeholder: 'TypeError in auth.ts:45 when the session has expired',
  });
  const errorText = h('textarea', { id: 'new-errorText', name: 'errorText', rows: '4', spellcheck: 'false' });
  const acceptance = h('textarea', { id: 'new-acceptance', name: 'acceptance', rows: '3' });
  const priority = h(
    'select',
    { id: 'new-priority', name: 'priority' },
    ['low', 'medium', 'high', 'critical'].map((p) => h('option', { value: p, selected: p === 'medium' }, p)),
  );
  const targetFiles = h('textarea', {
    id: 'new-targetFiles',
    name: 'targetFiles',
    rows: '2',
    spellcheck: 'false',
    placeholder: 'src/auth.ts',
  });
  const defaults = session.budget;
  // The form speaks minutes and dollars; the API takes milliseconds and USD.
  const budgetFields = [
    { key: 'turns', label: 'Model turns', placeholder: defaults.turns, toApi: (v) => Math.round(v) },
    { key: 'costUsd', label: 'Cost (USD)', placeholder: defaults.costUsd, toApi: (v) => v, step: '0.01' },
    {
      key: 'wallMs',
      label: 'Wall time (min)',
      placeholder: defaults.wallMs / 60_000,
      toApi: (v) => Math.round(v * 60_000),
    },
    { key: 'tokens', label: 'Tokens', placeholder: defaults.tokens, toApi: (v) => Math.round(v) },
  ].map((b) => ({
    ...b,
    input: h('input', {
      id: `new-budget-${b.key}`,
      name: b.key,
      type: 'number',
      min: '0',
      step: b.step ?? '1',
      inputmode: 'decimal',
      placeholder: String(b.placeholder),
    }),
  }));
  const confirmPlan = h('input', { type: 'checkbox', id: 'new-confirm-plan', name: 'confirmPlan' });
  const formError = h('p', { class: 'form-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'btn primary', id: 'new-submit' }, 'Start operation');

  const form = h(
    'form',
    { class: 'card form', id: 'new-operation-form', novalidate: true },
    h('div', { class: 'field', dataset: { field: 'type' } }, h('label', { for: 'new-type' }, 'Type'), type, typeHint),
    h(
      'div',
      { class: 'field-row' },
      field(
        'repo',
        'Repository',
        h('span', {}, repo, repoOptions),
        session.defaultRepo ? `Empty: ${session.defaultRepo}` : 'owner/name',
      ),
      field('baseBranch', 'Base branch', base),
    ),
    field('description', 'What should change?', description, 'The first line becomes the pull request title.'),
    h(
      'div',
      { class: 'field field-check', dataset: { field: 'confirmPlan' } },
      h(
        'label',
        { for: 'new-confirm-plan' },
        confirmPlan,
        ' Show me the plan first (Start / Modify / Cancel before any code is written)',
      ),
    ),
    h(
      'details',
      { class: 'more' },
      h('summary', {}, 'Context (optional)'),
      field('context.errorText', 'Error output or stack trace', errorText),
      field('context.acceptance', 'Acceptance criteria', acceptance),
      field('priority', 'Priority', priority, 'A critical operation starts before queued lower-priority work.'),
      field(
        'targetFiles',
        'Files to work on (one per line)',
        targetFiles,
        'Locked for this operation before the change starts, and named to the planner.',
      ),
    ),
    h(
      'fieldset',
      { class: 'budget' },
      h('legend', {}, 'Budget (optional)'),
      h(
        'div',
        { class: 'budget-grid' },
        budgetFields.map((b) =>
          h(
            'div',
            { class: 'field', dataset: { field: `budget.${b.key}` } },
            h('label', { for: `new-budget-${b.key}` }, b.label),
            b.input,
            h('p', { class: 'field-error', role: 'alert' }),
          ),
        ),
      ),
      h(
        'p',
        { class: 'field-hint' },
        'Empty fields take the server defaults shown. Whichever limit is reached first ends the run.',
      ),
    ),
    formError,
    h('div', { class: 'form-actions' }, submit, h('a', { href: '#/', class: 'btn ghost' }, 'Cancel')),
  );

  function showErrors(fields) {
    for (const el of form.querySelectorAll('.field-error')) el.textContent = '';
    const unplaced = [];
    for (const f of fields) {
      const el = form.querySelector(`[data-field="${CSS.escape(f.field)}"] .field-error`);
      if (el) el.textContent = f.reason;
      else unplaced.push(`${f.field}: ${f.reason}`);
    }
    return unplaced;
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    formError.textContent = '';
    if (!description.value.trim()) {
      showErrors([{ field: 'description', reason: 'Describe the change.' }]);
      description.focus();
      return;
    }
    const context = {};
    if (errorText.value.trim()) context.errorText = errorText.value;
    if (acceptance.value.trim()) context.acceptance = acceptance.value;
    const budget = {};
    for (const b of budgetFields) {
      const value = Number(b.input.value);
      if (b.input.value.trim() && Number.isFinite(value) && value > 0) budget[b.key] = b.toApi(value);
    }
    const files = targetFiles.value
      .split('\n')
      .map((f) => f.trim())
      .filter(Boolean);
    const body = {
      type: type.value,
      priority: priority.value,
      ...(files.length ? { targetFiles: files } : {}),
      baseBranch: base.value.trim() || 'main',
      description: description.value.trim(),
      ...(repo.value.trim() ? { repo: repo.value.trim() } : {}),
      ...(Object.keys(context).length ? { context } : {}),
      ...(Object.keys(budget).length ? { budget } : {}),
      ...(confirmPlan.checked ? { confirmPlan: true } : {}),
    };
    submit.disabled = true;
    submit.textContent = 'Starting…';
    try {
      const created = await api('POST', '/v1/operations', body, { 'idempotency-key': idempotencyKey });
      location.hash = `#/op/${created.id}`;
    } catch (err) {
      const unplaced = showErrors(err.fields ?? []);
      formError.textContent = err.fields?.length
        ? unplaced.length
          ? unplaced.join('; ')
          : 'Fix the marked fields.'
        : err.message;
      submit.disabled = false;
      submit.textContent = 'Start operation';
    }
  });

  root.append(h('div', { class: 'page narrow' }, h('div', { class: 'page-head' }, h('h1', {}, 'New operation')), form));
  description.focus();
  api('GET', '/v1/operations?limit=100')
    .then(({ operations }) => {
      const repos = [...new Set(operations.map((o) => o.repo))].sort();
      fill(repoOptions, ...repos.map((r) => h('option', { value: r })));
    })
    .catch(() => undefined);
  return () => {};
}
