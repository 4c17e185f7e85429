// The Changes tab's bar: the whole pull request, or only what changed since the last review (the interdiff).
import { button, h, shortSha } from './dom.js';

/** @import { Operation } from '@pullwright/core' */

/**
 * The last head someone reviewed (an approval, else the head a change request was made on).
 * @param {Pick<Operation, 'pullRequest' | 'approvals' | 'ledger'>} op
 * @returns {string | undefined}
 */
function lastReviewed(op) {
  const head = op.pullRequest?.headSha;
  const approved = (op.approvals ?? []).map((a) => a.headSha).filter((sha) => sha !== head);
  if (approved.length) return approved.at(-1);
  return [...(op.ledger ?? [])].reverse().find((r) => r.state === 'pushed' && r.fromSha && r.fromSha !== head)?.fromSha;
}

/**
 * @param {Pick<Operation, 'pullRequest' | 'approvals' | 'ledger'>} op
 * @param {string | null} since  The sha the shown diff starts from; null for the whole PR.
 * @param {(from: string | null) => void} onSince
 */
export function renderDiffBar(op, since, onSince) {
  const reviewed = lastReviewed(op);
  /**
   * @param {string} label
   * @param {string | null} from
   * @param {string} id
   */
  const mode = (label, from, id) =>
    button(label, () => onSince(from), since === from ? 'small primary' : 'small ghost', {
      'aria-pressed': String(since === from),
      id,
    });
  return h(
    'div',
    { class: 'diff-bar', id: 'diff-bar' },
    mode('All changes', null, 'diff-all'),
    reviewed || since
      ? mode(`Since last review (${shortSha(since ?? reviewed)})`, since ?? reviewed, 'diff-since')
      : null,
  );
}
