import type { Operation } from '@pullwright/core';

/**
 * Who may press Approve / Reject in Slack. The one place the rule lives: the policy
 * package (identities, GitHub write access) will replace this list check.
 */
export function mayApprove(slackUserId: string, approvers: readonly string[]): boolean {
  return approvers.includes(slackUserId);
}

/** Cancelling (`/cancel`, ❌ reaction): the person who asked, or anyone who may approve. */
export function mayCancel(
  slackUserId: string,
  op: Pick<Operation, 'requester'>,
  approvers: readonly string[],
): boolean {
  return (op.requester.source === 'slack' && op.requester.user === slackUserId) || mayApprove(slackUserId, approvers);
}
