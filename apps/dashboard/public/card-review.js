// The reviewer role's verdict on the change: accepted, or changes requested and what must be fixed.
import { h, titledBullets } from './dom.js';

/** @import { Review } from '@pullwright/core' */

/** @param {Review} review */
export function renderReview(review) {
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
    review.reasons.length
      ? h(
          'ul',
          { class: 'bullets' },
          review.reasons.map((r) => h('li', {}, r)),
        )
      : null,
    titledBullets('Must fix', review.must_fix),
  );
}
