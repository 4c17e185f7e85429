import type { Operation } from '@pullwright/core';

/**
 * Who may press Approve / Reject (and Start / Modify on a plan) in Slack, before the policy's
 * roles are asked. `SLACK_APPROVERS` and `IDENTITIES` combine so that neither widens the other:
 * - no `IDENTITIES`: the list decides (every caller is an admin to the policy); an empty list
 *   means nobody approves from Slack;
 * - `IDENTITIES` and no list: the roles decide alone (a merger approves from Slack as anywhere);
 * - both: a person must be on the list and have the role.
 * Returns the list to check, or `'roles'` when the roles decide alone.
 */
export function slackApprovers(list: readonly string[], identitiesSet: boolean): readonly string[] | 'roles' {
  return identitiesSet && list.length === 0 ? 'roles' : list;
}

/** The list check of `slackApprovers`; the policy's roles are checked after it by the action itself. */
export function mayApprove(slackUserId: string, approvers: readonly string[] | 'roles'): boolean {
  return approvers === 'roles' || approvers.includes(slackUserId);
}

/** Cancelling (`/cancel`, ❌ reaction): the person who asked, or anyone who may approve. */
export function mayCancel(
  slackUserId: string,
  op: Pick<Operation, 'requester'>,
  approvers: readonly string[] | 'roles',
): boolean {
  return (op.requester.source === 'slack' && op.requester.user === slackUserId) || mayApprove(slackUserId, approvers);
}
