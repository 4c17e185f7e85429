// The reviewer role's verdict on the change: accepted, or changes requested and what must be fixed.
import { h, titledBullets } from './dom.js';

/**
 * The reviewer's JSON answer (`review` is free-form in the schema).
 * @typedef {object} Review
 * @property {'accept' | 'request_changes'} decision
 * @property {string[]} [reasons]
 * @property {string[]} [must_fix]
 */

/** @param {Review | string} review  A plain string when the reviewer did not answer in JSON. */
export function renderReview(review) {
  if (typeof review !== 'object' || review === null) return h('p', {}, String(review));
  const accepted = review.decision === 'accept';
  return h(
    'div',
    {},
    h(
      'p',
      { class: accepted ? 'good-text' : 'warn-text' },
      h('strong', {}, accepted ? 'Accepted' : 'Changes requested'),
      ' by the reviewer role',
    ),
    review.reasons?.length
      ? h(
          'ul',
          { class: 'bullets' },
          review.reasons.map((r) => h('li', {}, r)),
        )
      : null,
    titledBullets('Must fix', review.must_fix),
  );
}
