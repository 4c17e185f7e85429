import {
  answerWithin,
  BlockActionsPayload,
  EventsEnvelope,
  REVISE_BLOCK,
  type SlackResponse,
  SlashCommandForm,
  ViewSubmissionPayload,
} from '@pullwright/slack';
import type { SlackServices } from './slack-services.ts';
import { validate } from './validate.ts';
import { textProblem } from './well-formed-body.ts';

/** Slack waits 3 s; answer well before, whatever the store or the forge are doing. */
const DEADLINE_MS = 2500;

/**
 * What Slack sends, whatever carried it (a signed HTTP request or a Socket Mode envelope):
 * each method returns the answer Slack reads (the HTTP body, or the envelope's ack payload),
 * within Slack's 3 seconds, and hands later results to the response URL or the thread.
 */
export class SlackInbound {
  constructor(private readonly slack: SlackServices) {}

  private failed(what: string) {
    return (err: unknown) => this.slack.deps.logger.error({ err, what }, 'slack request failed');
  }

  /** A slash command's fields (a form on HTTP, an object over the socket). */
  async command(fields: unknown): Promise<SlackResponse> {
    const { client } = this.slack.deps;
    const command = validate(SlashCommandForm, fields, 'body');
    // Refused here like a REST description: such text breaks the operation later (Redis, git).
    const problem = textProblem(command.text);
    if (problem) return { response_type: 'ephemeral', text: `The request text ${problem}.` };
    const sorry: SlackResponse = {
      response_type: 'ephemeral',
      text: 'Pullwright could not take this request right now; please try again in a minute.',
    };
    const working: SlackResponse = { response_type: 'ephemeral', text: 'Working on it…' };
    const work = this.slack.commands.handle(command).catch((err: unknown) => {
      this.failed('command')(err);
      return sorry;
    });
    const answer = await answerWithin(
      work,
      DEADLINE_MS,
      working,
      (late) => client.respond(command.response_url, { ...late, replace_original: true }),
      this.failed('late command answer'),
    );
    return client.scrub(answer);
  }

  /**
   * A button click, or a modal submitted (Request changes). A modal's answer is its fate —
   * closed, or an error under the text box — returned for the HTTP body or the envelope's
   * ack. Other interaction types (shortcuts, other modals) are acknowledged and ignored.
   */
  async interaction(payload: unknown): Promise<object | undefined> {
    const view = ViewSubmissionPayload.safeParse(payload);
    if (view.success) {
      const answer = await answerWithin(
        this.slack.interactions.handleView(view.data).catch((err: unknown) => {
          this.failed('view submission')(err);
          return {
            response_action: 'errors' as const,
            errors: { [REVISE_BLOCK]: 'Pullwright could not take this; try again.' },
          };
        }),
        DEADLINE_MS,
        {},
        async () => undefined,
        this.failed('view submission'),
      );
      return this.slack.deps.client.scrub(answer);
    }
    const parsed = BlockActionsPayload.safeParse(payload);
    if (!parsed.success) return undefined;
    await answerWithin(
      this.slack.interactions.handle(parsed.data).catch((err: unknown) => {
        this.failed('interaction')(err);
        return 'failed' as const;
      }),
      DEADLINE_MS,
      'failed',
      async () => undefined,
      this.failed('interaction'),
    );
    return undefined;
  }

  /** An Events API envelope; returns the challenge for Slack's URL check (HTTP only). */
  async event(body: unknown): Promise<{ challenge: string } | undefined> {
    const envelope = validate(EventsEnvelope, body, 'body');
    if (envelope.type === 'url_verification') return { challenge: envelope.challenge };
    await answerWithin(
      this.slack.events.handle(envelope).catch((err: unknown) => {
        this.failed('event')(err);
        return { kind: 'ignored' as const, why: 'error' };
      }),
      DEADLINE_MS,
      { kind: 'ignored', why: 'late' },
      async () => undefined,
      this.failed('event'),
    );
    return undefined;
  }
}
