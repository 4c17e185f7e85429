// The run record of one operation (numbered artifacts per model call and check run, the
// reports) and a failed operation's report. Its own module: the operation view only mounts it.
import { api } from './api.js';
import { coalesced, fill, h } from './dom.js';

/** What each kind of artifact is, for the list's second column. */
function describe(name) {
  const numbered = /^(\d+)-(.+)\.(json|txt)$/.exec(name);
  if (numbered?.[2].startsWith('mcp-')) return `MCP call: ${numbered[2].slice(4)}`;
  if (numbered) return numbered[3] === 'json' ? `model call: ${numbered[2]}` : `check run: ${numbered[2]}`;
  const named = {
    'PLAN.json': 'the plan',
    'TEST_REPORT.json': 'test report',
    'LINT_REPORT.json': 'lint report',
    'REVIEW.json': 'the review',
    'INSTRUCTIONS.json': 'repository instructions the model was given',
    'transcript.jsonl': 'whole transcript',
    'kept.diff': 'the change, not pushed',
  };
  return named[name] ?? '';
}

/**
 * A card body listing the operation's artifacts as downloads, refreshed on demand (the view
 * calls `refresh` when the operation changes; calls while one is in flight are folded).
 */
export function runRecordPanel(opId) {
  const root = h('div', { id: 'run-record' }, h('p', { class: 'muted' }, 'Loading…'));
  const refresh = coalesced(async () => {
    let list;
    try {
      list = (await api('GET', `/v1/operations/${opId}/artifacts`)).artifacts;
    } catch (err) {
      fill(root, h('p', { class: 'muted' }, `The run record could not be loaded: ${err.message}`));
      return;
    }
    if (!list.length) {
      fill(root, h('p', { class: 'muted' }, 'Nothing recorded yet.'));
      return;
    }
    fill(
      root,
      h(
        'ol',
        { class: 'plain run-record' },
        list.map((a) =>
          h(
            'li',
            { dataset: { name: a.name } },
            h('a', { href: a.url, download: `${opId}-${a.name}` }, h('code', {}, a.name)),
            h('span', { class: 'muted small' }, ` ${describe(a.name)}`),
          ),
        ),
      ),
    );
  });
  return { element: root, refresh };
}

/**
 * The failure report's markdown as elements (never as HTML): `##`/`###` headings, `-`
 * bullets, fenced code (indented or not) and paragraphs — the shapes the report uses.
 */
export function renderFailureReport(markdown) {
  const out = [];
  let list;
  let code;
  for (const raw of markdown.split('\n')) {
    const line = raw.startsWith('  ') && code ? raw.slice(2) : raw;
    if (/^\s*```/.test(line)) {
      if (code) {
        const pre = h('pre', { class: 'pre small' }, code.join('\n'));
        // A trace under a bullet belongs to that bullet.
        if (list?.lastElementChild) list.lastElementChild.append(pre);
        else out.push(pre);
        code = undefined;
      } else code = [];
      continue;
    }
    if (code) {
      code.push(line);
      continue;
    }
    const heading = /^(#{2,3}) (.*)$/.exec(line);
    const bullet = /^- (.*)$/.exec(line);
    if (heading) {
      list = undefined;
      out.push(h(heading[1] === '##' ? 'h3' : 'h4', {}, heading[2]));
    } else if (bullet) {
      if (!list) {
        list = h('ul', { class: 'bullets' });
        out.push(list);
      }
      list.append(h('li', {}, bullet[1]));
    } else if (line.trim()) {
      list = undefined;
      out.push(h('p', {}, line));
    }
  }
  return h('div', { class: 'failure-report' }, out);
}
