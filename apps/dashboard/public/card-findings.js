// The secret scan of the diff: what it found, or that it found nothing.
import { h } from './dom.js';

/** @import { Operation } from '@pullwright/core' */

/**
 * One scanner finding (`findings` is free-form in the schema; scanners name their fields differently).
 * @typedef {object} Finding
 * @property {string} [file]
 * @property {string} [path]
 * @property {number} [line]
 * @property {string} [rule]
 * @property {string} [ruleId]
 * @property {string} [kind]
 * @property {string} [message]
 * @property {string} [description]
 * @property {boolean} [preExisting] already on the base commit at that path: shown, it did not block
 */

/** @param {Finding | string} f */
function finding(f) {
  if (typeof f !== 'object' || f === null) return h('li', {}, String(f));
  const where = [f.file ?? f.path, f.line].filter((x) => x !== undefined).join(':');
  return h(
    'li',
    {},
    h('strong', {}, String(f.rule ?? f.ruleId ?? f.kind ?? 'finding')),
    where ? h('code', {}, ` ${where}`) : null,
    f.message || f.description ? h('span', {}, ` — ${f.message ?? f.description}`) : null,
    f.preExisting ? h('span', { class: 'muted' }, ' (already on the base; did not block)') : null,
  );
}

/**
 * No findings reads as "clean" only once the scan ran: the operation finished with a PR.
 * @param {Array<Finding | string>} findings
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
