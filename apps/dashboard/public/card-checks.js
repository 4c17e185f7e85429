// The repository's checks as the last verification ran them: pass or fail, the failing tests, the output.
import { duration, h, testList } from './dom.js';

/** @import { CheckResult, OperationStatus } from '@pullwright/core' */

/** @param {CheckResult} c */
function check(c) {
  return h(
    'li',
    { class: `check ${c.passed ? 'check-pass' : 'check-fail'}` },
    h(
      'details',
      {},
      h(
        'summary',
        {},
        h('span', { class: 'check-mark', 'aria-hidden': 'true' }, c.passed ? '✓' : '✗'),
        h('strong', {}, c.name),
        h('code', { class: 'muted' }, c.command),
        h('span', { class: 'spacer' }),
        c.preExisting
          ? h('span', { class: 'tag', title: 'Failed on the base branch too: reported, not blocking' }, 'pre-existing')
          : null,
        h(
          'span',
          { class: 'muted' },
          `${c.passed ? 'passed' : `exit ${c.exitCode ?? '—'}`} · ${duration(c.durationMs)}`,
        ),
      ),
      c.failingTests?.length ? testList(c.failingTests, 'red') : null,
      h('pre', { class: 'pre small' }, c.output || '(no output)'),
    ),
  );
}

/**
 * @param {CheckResult[]} checks
 * @param {OperationStatus} status  None yet means "not run yet" while the operation works.
 */
export function renderChecks(checks, status) {
  if (!checks.length) {
    return h(
      'p',
      { class: 'muted' },
      status === 'queued' || status === 'running'
        ? 'The checks run after the agent has made its changes.'
        : 'No checks ran.',
    );
  }
  return h('ul', { class: 'checks' }, checks.map(check));
}
