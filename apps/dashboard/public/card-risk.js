// The risk of the final diff: its level, its size and the reasons behind the level.
import { h } from './dom.js';

/** @import { RiskAssessment } from '@pullwright/core' */

/** @param {RiskAssessment | string | null | undefined} risk  A plain string from a record older than the assessment. */
export function renderRisk(risk) {
  if (risk === undefined || risk === null) return h('p', { class: 'muted' }, 'Not assessed yet.');
  if (typeof risk !== 'object') return h('p', {}, String(risk));
  const { level, reasons, stats } = risk;
  const size = stats
    ? `${stats.files} file${stats.files === 1 ? '' : 's'}, +${stats.additions} −${stats.deletions}`
    : undefined;
  return h(
    'div',
    {},
    h(
      'p',
      {},
      level ? h('span', { class: `risk risk-${level}` }, String(level)) : null,
      size ? h('span', { class: 'muted' }, ` · ${size}`) : null,
    ),
    Array.isArray(reasons) && reasons.length
      ? h(
          'ul',
          { class: 'plain' },
          reasons.map((r) => h('li', {}, String(r))),
        )
      : h('p', { class: 'muted' }, 'No risk factors found.'),
  );
}
