// "Now": what the operation is doing, for how long, and how long since it last said anything.
import { duration, h } from './dom.js';
import { currentStep } from './timeline.js';

/** @import { Operation, OperationEvent } from '@pullwright/core' */

/** A running step silent this long is flagged: a model or a check may be stuck. */
const QUIET_WARN_MS = 120_000;

/**
 * @param {Operation} op
 * @param {OperationEvent[]} events  Oldest first.
 * @param {number} now  Epoch ms; the page re-renders every second so the times count up.
 */
export function renderProgress(op, events, now) {
  const step = currentStep(op, events);
  const elapsed = (step.until ? Date.parse(step.until) : now) - Date.parse(step.since);
  const quiet = now - Date.parse(step.lastOutput);
  return h(
    'div',
    {},
    h(
      'p',
      { class: `step ${step.active ? 'step-active' : ''}` },
      step.active ? h('span', { class: 'pulse', 'aria-hidden': 'true' }) : null,
      step.label,
    ),
    step.detail ? h('p', { class: 'muted small' }, step.detail) : null,
    h(
      'dl',
      { class: 'kv' },
      h('dt', {}, step.active ? 'For' : 'Took'),
      h('dd', { id: 'elapsed' }, duration(elapsed)),
      step.quiet
        ? [
            h('dt', {}, 'Last output'),
            h('dd', { class: quiet > QUIET_WARN_MS ? 'warn-text' : '' }, `${duration(quiet)} ago`),
          ]
        : null,
    ),
  );
}
