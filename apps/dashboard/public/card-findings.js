// The secret scan of the diff: what it found, or that it found nothing.
import { h } from './dom.js';

/** @import { Finding, Operation } from '@pullwright/core' */

/** @param {Finding} f */
function finding(f) {
  return h(
    'li',
    {},
    h('strong', {}, f.ruleId),
    h('code', {}, ` ${f.line ? `${f.file}:${f.line}` : f.file}`),
    f.channel !== 'file' ? h('span', {}, ` — in the ${f.channel.replaceAll('-', ' ')}`) : null,
    f.preExisting ? h('span', { class: 'muted' }, ' (already on the base; did not block)') : null,
  );
}

/**
 * No findings reads as "clean" only once the scan ran: the operation finished with a PR.
 * @param {Finding[]} findings
 * @param {Pick<Operation, 'status' | 'pullRequest'>} op
 */
export function renderFindings(findings, op) {
  if (!findings.length) {
    const scanned = !['queued', 'running'].includes(op.status) && op.pullRequest;
    return h(
      'p',
      { class: scanned ? 'good-text' : 'muted' },
      scanned ? 'No findings: the diff passed the secret scan.' : 'None so far.',
    );
  }
  return h('ul', { class: 'findings' }, findings.map(finding));
}
