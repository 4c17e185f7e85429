// The operation's header: its status, type and id, its title, where it runs, who asked, its pull request.
import { age, h, shortSha, sourceBadge, statusBadge } from './dom.js';
import { webLink } from './timeline.js';

/** @import { Operation } from '@pullwright/core' */

/**
 * The local forge's PR page is served by this API (it redirects people to the Changes tab):
 * link it on this origin, since the recorded URL names the address the process bound to.
 * @param {string} url
 */
function pullRequestHref(url) {
  try {
    const u = new URL(url, location.href);
    return u.pathname.startsWith('/forge/') ? u.pathname : url;
  } catch {
    return url;
  }
}

/**
 * Where the work came from when no person asked here: an issue, a schedule or an event.
 * @param {Operation} op
 */
function originOf(op) {
  const o = op.origin;
  if (!o) return null;
  const text =
    o.kind === 'schedule'
      ? `from schedule ${o.name} (${o.cron}, ${o.tick})`
      : o.kind === 'event'
        ? `from ${o.source} event ${o.eventId}: ${o.title}`
        : `from issue #${o.number}: ${o.title}`;
  const href = 'url' in o && o.url ? webLink(o.url) : undefined;
  return href
    ? h('a', { href, target: '_blank', rel: 'noopener noreferrer', class: 'origin-link' }, text)
    : h('span', { class: 'origin' }, text);
}

/** @param {Operation} op */
function meta(op) {
  return h(
    'div',
    { class: 'op-meta' },
    h('span', { class: 'repo' }, op.repo),
    h('span', {}, h('code', {}, op.baseBranch), op.branch ? [' ← ', h('code', {}, op.branch)] : null),
    h('span', {}, 'by ', sourceBadge(op.requester)),
    originOf(op),
    h('span', { title: new Date(op.createdAt).toLocaleString() }, `${age(op.createdAt)} ago`),
    op.pullRequest
      ? h(
          'a',
          {
            href: pullRequestHref(op.pullRequest.url),
            target: '_blank',
            rel: 'noopener noreferrer',
            class: 'pr-link',
          },
          `Pull request #${op.pullRequest.number}`,
        )
      : null,
    op.mergeSha
      ? h('span', { id: 'merge-sha', title: op.mergeSha }, 'merged as ', h('code', {}, shortSha(op.mergeSha)))
      : null,
  );
}

/**
 * The description's first line is the title; the rest shows below the meta line.
 * @param {Operation} op
 */
export function renderStatus(op) {
  const [first, ...rest] = op.description.split('\n');
  const more = rest.join('\n').trim();
  return h(
    'div',
    { class: 'op-header-main' },
    h(
      'div',
      { id: 'op-status', class: 'op-status' },
      statusBadge(op.status, 'large'),
      h('span', { class: `type type-${op.type}` }, op.type),
      h('code', { class: 'muted' }, op.id),
    ),
    h('h1', { class: 'op-title' }, first),
    meta(op),
    h('div', {}, more ? h('p', { class: 'op-description' }, more) : null),
  );
}
