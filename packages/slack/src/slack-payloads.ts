import { z } from 'zod';

/** The form fields Slack posts for a slash command (the ones Pullwright reads). */
export const SlashCommandForm = z.object({
  team_id: z.string().min(1),
  channel_id: z.string().min(1),
  user_id: z.string().min(1),
  command: z.string().startsWith('/'),
  text: z.string().default(''),
  response_url: z.url(),
  trigger_id: z.string().min(1).max(200),
});
export type SlashCommandForm = z.infer<typeof SlashCommandForm>;

/** `block_actions` payload of a button click (form field `payload`, JSON). */
export const BlockActionsPayload = z.object({
  type: z.literal('block_actions'),
  user: z.object({ id: z.string().min(1) }),
  channel: z.object({ id: z.string() }).optional(),
  response_url: z.url().optional(),
  /** Opens a modal (views.open) within 3 s of the click. */
  trigger_id: z.string().max(200).optional(),
  actions: z.array(z.object({ action_id: z.string(), value: z.string().max(200).optional() })).min(1),
  /** The message's input blocks as the clicker left them: block id → action id → value. */
  state: z
    .object({
      values: z.record(z.string(), z.record(z.string(), z.object({ value: z.string().max(4000).nullish() }))),
    })
    .optional(),
});
export type BlockActionsPayload = z.infer<typeof BlockActionsPayload>;

/** A modal's submission (`view_submission`): the Request changes form. */
export const ViewSubmissionPayload = z.object({
  type: z.literal('view_submission'),
  user: z.object({ id: z.string().min(1) }),
  view: z.object({
    id: z.string().regex(/^[A-Za-z0-9]{1,60}$/),
    callback_id: z.string(),
    private_metadata: z.string().max(3000).default(''),
    state: z.object({
      values: z.record(z.string(), z.record(z.string(), z.object({ value: z.string().max(10_000).nullish() }))),
    }),
  }),
});
export type ViewSubmissionPayload = z.infer<typeof ViewSubmissionPayload>;

export const SlackMessageEvent = z.object({
  type: z.literal('message'),
  channel: z.string(),
  user: z.string().optional(),
  text: z.string().default(''),
  ts: z.string(),
  thread_ts: z.string().optional(),
  subtype: z.string().optional(),
  bot_id: z.string().optional(),
});

export const SlackReactionEvent = z.object({
  type: z.literal('reaction_added'),
  user: z.string(),
  reaction: z.string(),
  item: z.object({ type: z.string(), channel: z.string().optional(), ts: z.string().optional() }),
});

/** Events API envelopes: the URL check and the callbacks Pullwright subscribes to. */
export const EventsEnvelope = z.discriminatedUnion('type', [
  z.object({ type: z.literal('url_verification'), challenge: z.string().max(500) }),
  z.object({
    type: z.literal('event_callback'),
    event_id: z.string().min(1),
    /** Parsed by type in the handler: unknown event types are acknowledged and ignored. */
    event: z.object({ type: z.string() }).loose(),
  }),
]);
export type EventsEnvelope = z.infer<typeof EventsEnvelope>;
export type SlackMessageEvent = z.infer<typeof SlackMessageEvent>;
export type SlackReactionEvent = z.infer<typeof SlackReactionEvent>;
