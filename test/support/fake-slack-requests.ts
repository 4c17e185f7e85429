import { ALNUM, seededPick } from '@pullwright/security/credential-samples';
import { signSlackRequest } from '@pullwright/slack';

/**
 * Slack's legacy verification token, which every payload still carries and nothing checks (a
 * request is judged by its signature). Drawn at run time: a token-shaped literal here is what
 * `pullwright scan .` reports.
 */
export const VERIFICATION_TOKEN = seededPick(24)(ALNUM, 24);

export interface SlashCommandFields {
  command: string;
  text: string;
  user_id?: string;
  user_name?: string;
  channel_id?: string;
  channel_name?: string;
  trigger_id?: string;
  response_url: string;
}

let triggers = 0;

/** Every field Slack sends with a slash command, in Slack's order; form-encoded as Slack does. */
export function slashCommandBody(fields: SlashCommandFields): string {
  return new URLSearchParams({
    token: VERIFICATION_TOKEN,
    team_id: 'T0001',
    team_domain: 'acme',
    channel_id: fields.channel_id ?? 'C0DEV0001',
    channel_name: fields.channel_name ?? 'dev',
    user_id: fields.user_id ?? 'UDEV00001',
    user_name: fields.user_name ?? 'dana',
    command: fields.command,
    text: fields.text,
    api_app_id: 'A0PULLWRT1',
    is_enterprise_install: 'false',
    response_url: fields.response_url,
    trigger_id: fields.trigger_id ?? `13345224609.738474920.${(++triggers).toString(16).padStart(8, '0')}`,
  }).toString();
}

/** A `block_actions` click as Slack posts it: form field `payload` holding JSON. */
export function blockActionsBody(input: {
  user: string;
  actionId: string;
  value: string;
  channel?: string;
  messageTs?: string;
  responseUrl: string;
  /** What the message's input boxes held at the click: block id → action id → value. */
  inputs?: Record<string, Record<string, string>>;
}): string {
  const payload = {
    type: 'block_actions',
    user: { id: input.user, username: 'someone', team_id: 'T0001' },
    api_app_id: 'A0PULLWRT1',
    token: VERIFICATION_TOKEN,
    container: {
      type: 'message',
      message_ts: input.messageTs ?? '1700000000.000001',
      channel_id: input.channel ?? 'C0DEV0001',
    },
    trigger_id: `13345224609.738474920.${(++triggers).toString(16)}`,
    team: { id: 'T0001', domain: 'acme' },
    channel: { id: input.channel ?? 'C0DEV0001', name: 'dev' },
    message: { ts: input.messageTs ?? '1700000000.000001', type: 'message' },
    response_url: input.responseUrl,
    ...(input.inputs
      ? {
          state: {
            values: Object.fromEntries(
              Object.entries(input.inputs).map(([block, fields]) => [
                block,
                Object.fromEntries(
                  Object.entries(fields).map(([action, value]) => [action, { type: 'plain_text_input', value }]),
                ),
              ]),
            ),
          },
        }
      : {}),
    actions: [
      {
        action_id: input.actionId,
        block_id: 'pw_review',
        text: { type: 'plain_text', text: 'Approve' },
        value: input.value,
        type: 'button',
        action_ts: '1700000100.000001',
      },
    ],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

let events = 0;

/** An Events API `event_callback` envelope around `event`, JSON as Slack sends it. */
export function eventCallbackBody(
  event: Record<string, unknown>,
  eventId = `Ev${(++events).toString().padStart(8, '0')}`,
): string {
  return JSON.stringify({
    token: VERIFICATION_TOKEN,
    team_id: 'T0001',
    api_app_id: 'A0PULLWRT1',
    event,
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
  });
}

/** POSTs `body` to the API signed with `secret`, as Slack does; `headers` override the signed ones. */
export function postSigned(
  url: string,
  secret: string,
  body: string,
  options: { contentType?: string; timestamp?: number; headers?: Record<string, string | undefined> } = {},
): Promise<Response> {
  const signed = signSlackRequest(secret, body, options.timestamp);
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'application/x-www-form-urlencoded',
    'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    ...signed,
  };
  for (const [k, v] of Object.entries(options.headers ?? {})) {
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  }
  return fetch(url, { method: 'POST', headers, body });
}
