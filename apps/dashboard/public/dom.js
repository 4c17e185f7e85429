// Small DOM helpers. Every piece of data reaches the page as a text node or an attribute
// value, never as HTML: operation text comes from people and models.

import { STATUS_LABELS } from './vocabulary.js';

/**
 * h('a', { href: '#/', class: 'x', onclick: fn, dataset: { id } }, 'text', child, [more])
 * Props starting with "on" become listeners; false/null/undefined children are skipped.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export { STATUS_LABELS };

export function statusBadge(status, extra = '') {
  return h(
    'span',
    { class: `status status-${status} ${extra}`.trim(), dataset: { status } },
    STATUS_LABELS[status] ?? status,
  );
}

export function sourceBadge(requester) {
  return h(
    'span',
    { class: 'requester' },
    h('span', { class: 'requester-user' }, requester.user),
    h('span', { class: `source source-${requester.source}` }, requester.source),
  );
}

/** "12s", "5m", "3h", "2d" — compact ages for tables. */
export function age(iso, now = Date.now()) {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** "850 ms", "4.2 s", "3 m 04 s", "1 h 02 m". */
export function duration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} m ${String(Math.floor(s % 60)).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} m`;
}

export function cost(usd) {
  if (!Number.isFinite(usd)) return '—';
  return usd > 0 && usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export function tokens(n) {
  if (!Number.isFinite(n)) return '—';
  return n < 1000 ? String(n) : n < 1e6 ? `${(n / 1000).toFixed(1)}k` : `${(n / 1e6).toFixed(2)}M`;
}

export function clock(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? ''
    : d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
}

/**
 * Text with Markdown code spans (`like this`), as models write summaries: the spans become
 * <code> elements, the rest stays text. Nothing else in the text is interpreted.
 * @param {string} text
 */
export function withCode(text) {
  return String(text)
    .split(/`([^`\n]+)`/)
    .map((part, i) => (i % 2 === 1 ? h('code', {}, part) : part))
    .filter((part) => part !== '');
}

export function shortSha(sha) {
  return sha ? sha.slice(0, 7) : '';
}

/** A designed empty, loading or error state: a title, a line of help, and optional actions. */
export function notice(kind, title, detail, ...actions) {
  return h(
    'div',
    { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : 'status' },
    kind === 'loading' ? h('span', { class: 'spinner', 'aria-hidden': 'true' }) : null,
    h('p', { class: 'notice-title' }, title),
    detail ? h('p', { class: 'notice-detail' }, detail) : null,
    actions.length ? h('div', { class: 'notice-actions' }, actions) : null,
  );
}

export function button(label, onclick, variant = '', props = {}) {
  return h('button', { type: 'button', class: `btn ${variant}`.trim(), onclick, ...props }, label);
}

/** A titled card on the operation page. */
export function card(title, id, ...children) {
  return h('section', { class: 'card', id }, h('h2', { class: 'card-title' }, title), children);
}

/** A heading and its bullet list; nothing when the list is missing or empty. */
export function titledBullets(title, items) {
  return items?.length
    ? [
        h('h3', {}, title),
        h(
          'ul',
          { class: 'bullets' },
          items.map((r) => h('li', {}, r)),
        ),
      ]
    : null;
}

/** Test names, coloured by whether they failed (red) or passed (green). */
export function testList(names, tone) {
  return h(
    'ul',
    { class: `tests tests-${tone}` },
    names.map((n) => h('li', {}, n)),
  );
}

/**
 * A labelled box for a person's note (a plan change, a reason to reject, a message to the
 * model): `label` and `text` to place, `text.value` to read.
 */
export function noteBox(id, label, { rows, maxlength, placeholder }) {
  return {
    label: h('label', { for: id }, label),
    text: h('textarea', { id, rows: String(rows), maxlength: String(maxlength), placeholder }),
  };
}

/** The header's connection indicator: live, reconnecting, offline or idle (no stream open). */
export function setLive(state, label = '') {
  const el = document.getElementById('live');
  if (!el) return;
  el.dataset.state = state;
  el.textContent = label;
}

/** replaceChildren that takes what h() takes: arrays flatten, false/null/undefined are skipped. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** One run at a time: a call during a run asks for one more run after it, however many calls came. */
export function coalesced(fn) {
  let running = false;
  let again = false;
  const run = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await fn();
    } finally {
      running = false;
      if (again) {
        again = false;
        run();
      }
    }
  };
  return run;
}
