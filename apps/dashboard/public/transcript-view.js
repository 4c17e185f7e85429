// The model conversation (redacted JSONL from the server), newest at the bottom.
import { clock, fill, h, notice } from './dom.js';

const MAX_ENTRIES = 400;

function pre(text, extra = '') {
  return h('pre', { class: `pre ${extra}`.trim() }, text);
}

function json(value) {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

function entryBody(e) {
  switch (e.kind) {
    case 'task':
      return [pre(e.task ?? ''), e.system ? h('details', {}, h('summary', {}, 'System prompt'), pre(e.system)) : null];
    case 'response':
      return (e.content ?? []).map((block) =>
        block.type === 'text'
          ? h('p', { class: 'say' }, block.text)
          : block.type === 'tool_use'
            ? h(
                'div',
                { class: 'call' },
                h('span', { class: 'call-name' }, `→ ${block.name}`),
                pre(json(block.input), 'small'),
              )
            : pre(json(block), 'small'),
      );
    case 'tool': {
      const output = String(e.output ?? '');
      return [
        pre(json(e.input), 'small'),
        output.length > 600 || output.split('\n').length > 12
          ? h(
              'details',
              {},
              h('summary', {}, `Output (${output.split('\n').length} lines)`),
              pre(output, e.isError ? 'bad' : ''),
            )
          : pre(output, e.isError ? 'bad' : ''),
      ];
    }
    case 'inbox':
      return (e.messages ?? []).map((m) => h('p', { class: 'say' }, m));
    default:
      return pre(json(e), 'small');
  }
}

function title(e) {
  const role = e.role ? ` · ${e.role}` : '';
  switch (e.kind) {
    case 'task':
      return `Task${role}`;
    case 'response':
      return `Model${role} · turn ${e.turn}`;
    case 'tool':
      return `${e.name}${e.isError ? ' · error' : ''}`;
    case 'inbox':
      return 'Message from a person';
    default:
      return e.kind ?? 'entry';
  }
}

export function renderTranscript(root, text, onRefresh) {
  const lines = text.split('\n').filter(Boolean);
  const entries = lines.map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      return { kind: 'unreadable', text: line };
    }
  });
  const shown = entries.slice(-MAX_ENTRIES);
  fill(
    root,
    h(
      'div',
      { class: 'transcript-head' },
      h(
        'span',
        { class: 'muted' },
        `${entries.length} entries, redacted${shown.length < entries.length ? ` · last ${shown.length} shown` : ''}`,
      ),
      h('button', { type: 'button', class: 'btn ghost small', onclick: onRefresh }, 'Refresh'),
    ),
    h(
      'ol',
      { class: 'transcript', id: 'transcript' },
      shown.map((e) =>
        h(
          'li',
          { class: `tx tx-${e.kind}${e.isError ? ' tx-error' : ''}` },
          h(
            'div',
            { class: 'tx-head' },
            h('span', { class: 'tx-title' }, title(e)),
            h('time', { class: 'muted' }, clock(e.ts)),
          ),
          entryBody(e),
        ),
      ),
    ),
  );
}

export function transcriptMissing(root, op) {
  fill(
    root,
    op.status === 'queued'
      ? notice(
          'empty',
          'No transcript yet',
          'It starts with the first model call, once a worker picks the operation up.',
        )
      : notice('empty', 'No transcript', 'This operation has no model conversation on record.'),
  );
}
