// The pull request's diff, one block per file, lines numbered and coloured by the server's parse.
import { fill, h, notice } from './dom.js';

const STATUS_WORDS = { added: 'added', deleted: 'deleted', modified: 'modified', renamed: 'renamed', copied: 'copied' };

function fileBlock(file, index) {
  const title = file.oldPath ? `${file.oldPath} → ${file.path}` : file.path;
  const body = file.binary
    ? h('p', { class: 'muted diff-note' }, 'Binary file — not shown.')
    : file.lines.length === 0
      ? h(
          'p',
          { class: 'muted diff-note' },
          file.oldMode && file.newMode
            ? `Mode ${file.oldMode} → ${file.newMode}; no content changes.`
            : 'No content changes (name only).',
        )
      : h(
          'div',
          { class: 'diff-scroll' },
          h(
            'table',
            { class: 'diff-table' },
            h(
              'tbody',
              {},
              file.lines.map((line) =>
                line.kind === 'hunk'
                  ? h('tr', { class: 'diff-hunk' }, h('td', { colspan: '3' }, line.text))
                  : h(
                      'tr',
                      { class: `diff-line diff-${line.kind}` },
                      h('td', { class: 'ln' }, line.old ?? ''),
                      h('td', { class: 'ln' }, line.new ?? ''),
                      h(
                        'td',
                        { class: 'code' },
                        h(
                          'span',
                          { class: 'marker', 'aria-hidden': 'true' },
                          { add: '+', del: '−', context: ' ', note: '\\' }[line.kind],
                        ),
                        line.text,
                      ),
                    ),
              ),
            ),
          ),
        );
  return h(
    'details',
    { class: 'diff-file', open: true, id: `diff-file-${index}`, dataset: { path: file.path } },
    h(
      'summary',
      {},
      h('span', { class: `file-status file-${file.status}` }, STATUS_WORDS[file.status] ?? file.status),
      h('code', { class: 'file-path' }, title),
      h('span', { class: 'spacer' }),
      h('span', { class: 'adds' }, `+${file.additions}`),
      h('span', { class: 'dels' }, `−${file.deletions}`),
    ),
    body,
    file.truncated ? h('p', { class: 'muted diff-note' }, 'Long diff: the rest of this file is not shown here.') : null,
  );
}

export function renderDiff(root, diff, op) {
  if (!diff.files.length && diff.since) {
    fill(root, notice('empty', 'No changes', `Nothing changed on the branch since ${diff.since.slice(0, 7)}.`));
    return;
  }
  if (!diff.files.length) {
    fill(
      root,
      op.pullRequest
        ? notice('empty', 'No changes', 'The pull request has no differences from its base.')
        : ['queued', 'running'].includes(op.status)
          ? notice(
              'empty',
              'No pull request yet',
              'The changes appear here once the checks pass and the pull request is opened.',
            )
          : notice('empty', 'No pull request', 'This operation ended without opening a pull request.'),
    );
    return;
  }
  const adds = diff.files.reduce((n, f) => n + f.additions, 0);
  const dels = diff.files.reduce((n, f) => n + f.deletions, 0);
  fill(
    root,
    h(
      'div',
      { class: 'diff-summary' },
      h(
        'span',
        {},
        `${diff.files.length} file${diff.files.length === 1 ? '' : 's'} changed `,
        h('span', { class: 'adds' }, `+${adds}`),
        ' ',
        h('span', { class: 'dels' }, `−${dels}`),
      ),
      h(
        'span',
        { class: 'muted', id: 'diff-range' },
        diff.since
          ? `since ${diff.since.slice(0, 7)}, at ${diff.headSha.slice(0, 7)}`
          : `at ${diff.headSha.slice(0, 7)}`,
      ),
    ),
    diff.since && diff.baseFactoredOut === false
      ? h(
          'p',
          { class: 'warn-text small' },
          'The base branch conflicts with the older head: base changes may show here too.',
        )
      : null,
    h(
      'ul',
      { class: 'diff-index' },
      diff.files.map((f, i) =>
        h(
          'li',
          {},
          h('a', { href: `#diff-file-${i}`, onclick: jumpTo(i) }, f.path),
          ' ',
          h('span', { class: 'adds' }, `+${f.additions}`),
          ' ',
          h('span', { class: 'dels' }, `−${f.deletions}`),
        ),
      ),
    ),
    diff.files.map(fileBlock),
  );
}

// The router owns the hash; jump within the page without touching it.
function jumpTo(index) {
  return (e) => {
    e.preventDefault();
    document.getElementById(`diff-file-${index}`)?.scrollIntoView({ behavior: 'smooth', block: 'start' });
  };
}

export function diffLoading(root) {
  fill(root, notice('loading', 'Loading the diff…'));
}
