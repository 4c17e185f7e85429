import {
  type BudgetDecision,
  budgetDecisionEvent,
  decideBudget,
  decidePlan,
  isPullwrightError,
  type PlanDecision,
} from '@pullwright/core';
import {
  BUDGET_AMOUNT_BLOCK,
  BUDGET_AMOUNT_INPUT,
  BUDGET_EXTEND_ACTION,
  BUDGET_STOP_ACTION,
} from './slack-budget-messages.ts';
import type { SlackDeps } from './slack-deps.ts';
import {
  APPROVE_ACTION,
  PLAN_CANCEL_ACTION,
  PLAN_MODIFY_ACTION,
  PLAN_NOTE_BLOCK,
  PLAN_NOTE_INPUT,
  PLAN_START_ACTION,
  REJECT_ACTION,
} from './slack-messages.ts';
import type { BlockActionsPayload, ViewSubmissionPayload } from './slack-payloads.ts';
import { mayApprove, mayCancel } from './slack-permissions.ts';
import {
  DEPLOY_ACTION,
  REVISE_ACTION,
  REVISE_BLOCK,
  REVISE_INPUT,
  REVISE_VIEW,
  requestChangesModal,
} from './slack-review-messages.ts';

type InteractionOutcome =
  | 'approved'
  | 'rejected'
  | 'started'
  | 'modified'
  | 'cancelled'
  | 'refused'
  | 'failed'
  | 'ignored'
  | 'opened'
  | 'deploying'
  | 'extended'
  | 'stopped';

/** What Slack does with a modal submission: close it (`{}`), or show an error under the text box. */
type ViewAnswer = Record<string, never> | { response_action: 'errors'; errors: Record<string, string> };

const OP_ID = /^[a-z0-9]{6,40}$/;

const PLAN_ACTIONS = new Set([PLAN_START_ACTION, PLAN_MODIFY_ACTION, PLAN_CANCEL_ACTION]);

/**
 * Approve / Reject buttons, and Start / Modify / Cancel on a plan. The review buttons'
 * value is `<opId>:<headSha>`: the approval is bound to the commit the approver saw, and
 * refused if the branch moved since. The plan buttons' value is the operation id.
 */
export class SlackInteractionHandler {
  constructor(private readonly deps: SlackDeps) {}

  async handle(payload: BlockActionsPayload): Promise<InteractionOutcome> {
    const action = payload.actions[0]!;
    if (PLAN_ACTIONS.has(action.action_id)) return this.#plan(payload, action.action_id);
    if (action.action_id === BUDGET_EXTEND_ACTION || action.action_id === BUDGET_STOP_ACTION)
      return this.#budget(payload, action.action_id);
    if (action.action_id === REVISE_ACTION) return this.#openRevise(payload);
    if (action.action_id === DEPLOY_ACTION) return this.#deploy(payload);
    if (action.action_id !== APPROVE_ACTION && action.action_id !== REJECT_ACTION) return 'ignored';
    // `id/sha`; `id:sha` on the buttons of messages posted before the separator changed.
    const match = /^([a-z0-9]{6,40})[/:]([0-9a-f]{7,64})$/.exec(action.value ?? '');
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

  /** Start and Modify are for approvers; Cancel also for the requester (as `/cancel`). */
  async #plan(payload: BlockActionsPayload, actionId: string): Promise<InteractionOutcome> {
    const opId = /^[a-z0-9]{6,40}$/.exec(payload.actions[0]!.value ?? '')?.[0];
    if (!opId) return 'ignored';
    const { store, settings, actions } = this.deps;
    const user = payload.user.id;
    try {
      if (actionId === PLAN_CANCEL_ACTION) {
        if (!mayCancel(user, await store.get(opId), settings.approvers)) {
          await this.#tell(payload, `Only the requester or an approver may cancel ${opId}.`);
          return 'refused';
        }
        await actions.cancel(opId, { user, source: 'slack' });
        return 'cancelled';
      }
      if (!mayApprove(user, settings.approvers)) {
        await this.#tell(payload, `Only approvers can start or modify the plan of ${opId}; ask one of them.`);
        return 'refused';
      }
      const note = payload.state?.values[PLAN_NOTE_BLOCK]?.[PLAN_NOTE_INPUT]?.value?.trim();
      if (actionId === PLAN_MODIFY_ACTION && !note) {
        await this.#tell(payload, 'Write what should change in the box above the buttons, then press Modify.');
        return 'refused';
      }
      const d: PlanDecision =
        actionId === PLAN_START_ACTION
          ? { decision: 'start', by: user }
          : { decision: 'modify', by: user, note: note! };
      await store.update(opId, (op) => decidePlan(op, d), {
        type: 'plan_confirmation',
        data: { state: d.decision === 'start' ? 'started' : 'modified', by: user, ...(d.note ? { note: d.note } : {}) },
      });
      return d.decision === 'start' ? 'started' : 'modified';
    } catch (err) {
      if (!isPullwrightError(err)) throw err;
      await this.#tell(payload, `Could not act on the plan of ${opId}: ${err.message}`);
      return 'failed';
    }
  }

  /** Extend (by the amount in the box) or Stop at the budget's threshold: the requester or an approver. */
  async #budget(payload: BlockActionsPayload, actionId: string): Promise<InteractionOutcome> {
    const opId = OP_ID.exec(payload.actions[0]!.value ?? '')?.[0];
    if (!opId) return 'ignored';
    const { store, settings } = this.deps;
    const user = payload.user.id;
    try {
      if (!mayCancel(user, await store.get(opId), settings.approvers)) {
        await this.#tell(payload, `Only the requester or an approver may extend or stop the budget of ${opId}.`);
        return 'refused';
      }
      const typed = payload.state?.values[BUDGET_AMOUNT_BLOCK]?.[BUDGET_AMOUNT_INPUT]?.value?.trim() ?? '';
      const amountUsd = Number(typed.replace(/^\$/, ''));
      if (actionId === BUDGET_EXTEND_ACTION && !(amountUsd > 0 && amountUsd <= 1000)) {
        await this.#tell(
          payload,
          'Write the amount to add in USD (above 0, at most 1000) in the box, then press Extend.',
        );
        return 'refused';
      }
      const d: BudgetDecision =
        actionId === BUDGET_EXTEND_ACTION ? { action: 'extend', by: user, amountUsd } : { action: 'stop', by: user };
      await store.update(opId, (op) => decideBudget(op, d), budgetDecisionEvent(d));
      return d.action === 'extend' ? 'extended' : 'stopped';
    } catch (err) {
      if (!isPullwrightError(err)) throw err;
      await this.#tell(payload, `Could not act on the budget of ${opId}: ${err.message}`);
      return 'failed';
    }
  }

  /**
   * Request changes: the modal opens only for someone the policy lets revise (the refusal,
   * naming the missing role, is said at once instead of after they typed).
   */
  async #openRevise(payload: BlockActionsPayload): Promise<InteractionOutcome> {
    const opId = OP_ID.exec(payload.actions[0]!.value ?? '')?.[0];
    if (!opId || !payload.trigger_id) return 'ignored';
    const by = { user: payload.user.id, source: 'slack' as const };
    try {
      await this.deps.actions.authorize(opId, by, 'revise');
      const op = await this.deps.store.get(opId);
      await this.deps.client.openView(payload.trigger_id, requestChangesModal(op, op.pullRequest?.number));
      return 'opened';
    } catch (err) {
      if (!isPullwrightError(err)) throw err;
      await this.#tell(payload, `Could not request changes to ${opId}: ${err.message}`);
      return err.code === 'forbidden' ? 'refused' : 'failed';
    }
  }

  /** Deploy: the policy's deploy role decides; progress follows in the thread (`deploy` events). */
  async #deploy(payload: BlockActionsPayload): Promise<InteractionOutcome> {
    const opId = OP_ID.exec(payload.actions[0]!.value ?? '')?.[0];
    if (!opId) return 'ignored';
    try {
      await this.deps.actions.deploy(opId, { user: payload.user.id, source: 'slack' });
      return 'deploying';
    } catch (err) {
      if (!isPullwrightError(err)) throw err;
      await this.#tell(payload, `Could not deploy ${opId}: ${err.message}`);
      return err.code === 'forbidden' ? 'refused' : 'failed';
    }
  }

  /**
   * The Request changes modal, submitted: the same revise job as a GitHub review. A refusal
   * shows under the text box (the modal stays open); the view id makes a resubmission revise once.
   */
  async handleView(payload: ViewSubmissionPayload): Promise<ViewAnswer> {
    if (payload.view.callback_id !== REVISE_VIEW) return {};
    const opId = OP_ID.exec(payload.view.private_metadata)?.[0];
    const text = payload.view.state.values[REVISE_BLOCK]?.[REVISE_INPUT]?.value?.trim();
    const error = (message: string): ViewAnswer => ({ response_action: 'errors', errors: { [REVISE_BLOCK]: message } });
    if (!opId) return error('This form does not name an operation; press Request changes again.');
    if (!text) return error('Say what should change.');
    const user = payload.user.id;
    try {
      await this.deps.actions.requestChanges(opId, { user, source: 'slack' }, text, `slack-view-${payload.view.id}`);
    } catch (err) {
      if (!isPullwrightError(err)) throw err;
      return error(err.message.slice(0, 1900));
    }
    await this.#say(opId, this.deps.messages.changesRequested(user, text));
    return {};
  }

  /** Posts in the operation's thread, when it has one and a bot to post with. */
  async #say(opId: string, message: { text: string }): Promise<void> {
    const session = await this.deps.sessions.get(opId);
    if (!session?.rootTs || !this.deps.client.hasBot) return;
    await this.deps.client
      .postMessage(session.channel, message, session.rootTs)
      .catch((err: unknown) => this.deps.logger.warn({ err, opId }, 'slack: thread note failed'));
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
