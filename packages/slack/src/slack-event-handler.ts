import { isPullwrightError } from '@pullwright/core';
import type { SlackDeps } from './slack-deps.ts';
import { type EventsEnvelope, SlackMessageEvent, SlackReactionEvent } from './slack-payloads.ts';
import { mayCancel } from './slack-permissions.ts';

type EventOutcome =
  | { kind: 'challenge'; challenge: string }
  | { kind: 'delivered'; opId: string }
  | { kind: 'revision'; opId: string }
  | { kind: 'cancelled'; opId: string }
  | { kind: 'ignored'; why: string };

/** The reaction that stops an operation when put on its channel message. */
const STOP_REACTION = 'x';

/** Once the PR is open, a thread reply asks for changes: a revision, not a message to a model that has stopped. */
const REVISABLE = new Set(['awaiting_approval', 'approved']);

/**
 * Events API: replies in an operation's thread go to its inbox while it runs (the model
 * reads them before its next step) and become change requests once its PR is open; a ❌ on
 * its channel message cancels it.
 */
export class SlackEventHandler {
  constructor(private readonly deps: SlackDeps) {}

  async handle(envelope: EventsEnvelope): Promise<EventOutcome> {
    if (envelope.type === 'url_verification') return { kind: 'challenge', challenge: envelope.challenge };
    if (!(await this.deps.sessions.claimEvent(envelope.event_id))) return { kind: 'ignored', why: 'redelivery' };
    const message = SlackMessageEvent.safeParse(envelope.event);
    if (message.success) return this.#reply(message.data);
    const reaction = SlackReactionEvent.safeParse(envelope.event);
    if (reaction.success) return this.#reaction(reaction.data);
    return { kind: 'ignored', why: `event ${envelope.event.type}` };
  }

  async #reply(e: SlackMessageEvent): Promise<EventOutcome> {
    // Edits, joins and our own posts arrive as messages too; only people's new replies count.
    if (e.subtype || e.bot_id || !e.user) return { kind: 'ignored', why: 'not a person’s message' };
    if (!e.thread_ts || e.thread_ts === e.ts) return { kind: 'ignored', why: 'not a thread reply' };
    const opId = await this.deps.sessions.findByThread(e.channel, e.thread_ts);
    if (!opId) return { kind: 'ignored', why: 'not an operation thread' };
    const op = await this.deps.store.find(opId);
    const revising = op !== undefined && REVISABLE.has(op.status);
    if (!op || (op.status !== 'running' && op.status !== 'queued' && !revising)) {
      const why = `operation is ${op?.status ?? 'gone'}`;
      if (op && this.deps.client.hasBot) {
        // Say so: a silently dropped instruction is worse than none.
        await this.deps.client.postEphemeral(
          e.channel,
          e.user,
          this.deps.messages.notice(
            `${opId} is ${op.status.replace('_', ' ')}; your message was not passed to the model.`,
          ),
        );
      }
      return { kind: 'ignored', why };
    }
    const text = e.text.trim().slice(0, 10_000);
    if (!text) return { kind: 'ignored', why: 'empty' };
    const by = { user: e.user, source: 'slack' as const };
    // Steering the model is revising: the repository policy's `permissions.revise` decides.
    try {
      if (revising) {
        // The message ts names the request: Slack's redelivery of the same reply revises once.
        const ref = Number(e.ts.replace('.', ''));
        await this.deps.actions.requestChanges(opId, by, text, `slack-${e.ts.replace('.', '')}`, ref);
        if (this.deps.client.hasBot)
          await this.deps.client.postMessage(e.channel, this.deps.messages.changesRequested(e.user, text), e.thread_ts);
        return { kind: 'revision', opId };
      }
      await this.deps.actions.authorize(opId, by, 'revise');
    } catch (err) {
      if (!(isPullwrightError(err) && (err.code === 'forbidden' || err.code === 'invalid_transition'))) throw err;
      if (this.deps.client.hasBot)
        await this.deps.client.postEphemeral(e.channel, e.user, this.deps.messages.notice(err.message));
      return { kind: 'ignored', why: err.message };
    }
    await this.deps.inbox.push(opId, { from: e.user, source: 'slack', text });
    return { kind: 'delivered', opId };
  }

  async #reaction(e: SlackReactionEvent): Promise<EventOutcome> {
    if (e.reaction !== STOP_REACTION || e.item.type !== 'message' || !e.item.channel || !e.item.ts) {
      return { kind: 'ignored', why: 'not a stop reaction' };
    }
    const opId = await this.deps.sessions.findByThread(e.item.channel, e.item.ts);
    if (!opId) return { kind: 'ignored', why: 'not an operation message' };
    const op = await this.deps.store.find(opId);
    if (!op) return { kind: 'ignored', why: 'operation is gone' };
    if (!mayCancel(e.user, op, this.deps.settings.approvers)) {
      if (this.deps.client.hasBot) {
        await this.deps.client.postEphemeral(
          e.item.channel,
          e.user,
          this.deps.messages.notice(`Only the requester or an approver may stop ${opId}.`),
        );
      }
      return { kind: 'ignored', why: 'not allowed' };
    }
    try {
      await this.deps.actions.cancel(opId, { user: e.user, source: 'slack' });
      return { kind: 'cancelled', opId };
    } catch (err) {
      if (!isPullwrightError(err)) throw err;
      return { kind: 'ignored', why: err.message };
    }
  }
}
