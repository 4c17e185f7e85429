import { isPullwrightError } from '@pullwright/core';
import type { SlackDeps } from './slack-deps.ts';
import { APPROVE_ACTION, REJECT_ACTION } from './slack-messages.ts';
import type { BlockActionsPayload } from './slack-payloads.ts';
import { mayApprove } from './slack-permissions.ts';

export type InteractionOutcome = 'approved' | 'rejected' | 'refused' | 'failed' | 'ignored';

/**
 * Approve / Reject buttons. The button value is `<opId>:<headSha>`: the approval is bound
 * to the commit the approver saw, and refused if the branch moved since.
 */
export class SlackInteractionHandler {
  constructor(private readonly deps: SlackDeps) {}

  async handle(payload: BlockActionsPayload): Promise<InteractionOutcome> {
    const action = payload.actions[0]!;
    if (action.action_id !== APPROVE_ACTION && action.action_id !== REJECT_ACTION) return 'ignored';
    const match = /^([a-z0-9]{6,40}):([0-9a-f]{7,64})$/.exec(action.value ?? '');
    if (!match) return 'ignored';
    const [, opId, headSha] = match as unknown as [string, string, string];
    const user = payload.user.id;
    if (!mayApprove(user, this.deps.settings.approvers)) {
      await this.#tell(payload, `Only approvers can approve or reject ${opId}; ask one of them to press the button.`);
      return 'refused';
    }
    const by = { user, source: 'slack' as const };
    try {
      if (action.action_id === APPROVE_ACTION) {
        await this.deps.actions.approve(opId, by, headSha);
        return 'approved';
      }
      await this.deps.actions.reject(opId, by, 'rejected in Slack');
      return 'rejected';
    } catch (err) {
      if (!isPullwrightError(err)) throw err;
      await this.#tell(
        payload,
        `Could not ${action.action_id === APPROVE_ACTION ? 'approve' : 'reject'} ${opId}: ${err.message}`,
      );
      return 'failed';
    }
  }

  /** An ephemeral answer to the one who clicked; the thread keeps the shared story. */
  async #tell(payload: BlockActionsPayload, text: string): Promise<void> {
    const message = {
      response_type: 'ephemeral' as const,
      replace_original: false,
      ...this.deps.messages.notice(text),
    };
    if (payload.response_url) {
      await this.deps.client.respond(payload.response_url, message);
    } else if (payload.channel && this.deps.client.hasBot) {
      await this.deps.client.postEphemeral(payload.channel.id, payload.user.id, message);
    }
  }
}
