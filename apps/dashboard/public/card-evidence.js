// For /debug: the tests that failed before the change and pass after it.
import { h, testList } from './dom.js';

/** @import { Evidence } from '@pullwright/core' */

/** @param {Evidence} evidence */
export function renderEvidence(evidence) {
  return h(
    'div',
    {},
    h(
      'p',
      { class: evidence.reproduced ? 'good-text' : 'warn-text' },
      evidence.reproduced
        ? 'Reproduced: these tests failed on the base branch and pass with the change.'
        : 'Not reproduced by a failing test.',
    ),
    evidence.red?.length ? [h('h3', {}, 'Failed before'), testList(evidence.red, 'red')] : null,
    evidence.green?.length ? [h('h3', {}, 'Pass after'), testList(evidence.green, 'green')] : null,
    evidence.note ? h('p', { class: 'muted' }, evidence.note) : null,
  );
}
