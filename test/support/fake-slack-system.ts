import { createSlackServices, type SlackServices } from '@pullwright/api';
import type { Operation, OperationEvent, OperationStatus } from '@pullwright/core';
import { sampleSecret } from '@pullwright/security/credential-samples';
import type { SlackNotifier } from '@pullwright/slack';
import { eventually } from '@pullwright/testing/eventually';
import { type FakeSlack, startFakeSlack } from './fake-slack.ts';
import {
  blockActionsBody,
  eventCallbackBody,
  postSigned,
  type SlashCommandFields,
  slashCommandBody,
} from './fake-slack-requests.ts';
import { type FakeSocketMode, startFakeSocketMode } from './fake-slack-socket-mode.ts';
import { startTestSystem, type TestSystem } from './test-runtime.ts';

export const SIGNING_SECRET = 'test-signing-secret-4c1f9a0b7d2e';
/** Shaped like a real bot token, so both the exact-value and the pattern redaction are exercised. */
export const BOT_TOKEN = sampleSecret('slack-bot-token', 17);
/** An app-level token for Socket Mode. */
export const APP_TOKEN = sampleSecret('slack-app-token', 19);
export const APPROVER = 'UAPPROVE01';
export const REQUESTER = 'UDEV00001';
export const CHANNEL = 'C0DEV0001';

export interface SlackSystem {
  sys: TestSystem;
  fake: FakeSlack;
  /** With `transport: 'socket'`: Slack's end of the Socket Mode connection. */
  socket: FakeSocketMode | undefined;
  services: SlackServices;
  /** Started unless `notifier: false` was asked for. */
  notifier: SlackNotifier | undefined;
  /** Every HTTP answer the API gave to Slack: these are Slack payloads too. */
  answers: string[];
  /** How long each slash command took to answer, in ms (Slack gives up after 3000). */
  commandMs: number[];
  command(
    fields: Omit<SlashCommandFields, 'response_url'> & { response_url?: string },
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  click(input: {
    user: string;
    actionId: string;
    value: string;
    hook: string;
    inputs?: Record<string, Record<string, string>>;
  }): Promise<number>;
  event(event: Record<string, unknown>, eventId?: string): Promise<number>;
  waitForStatus(id: string, statuses: OperationStatus[], timeoutMs?: number): Promise<Operation>;
  waitForEvent(id: string, match: (e: OperationEvent) => boolean, timeoutMs?: number): Promise<OperationEvent>;
  /** The ts of the operation's channel message, once the notifier has posted it and recorded it on the operation. */
  threadOf(id: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * A test system with Slack switched on against a fake Slack, and a notifier that polls fast.
 * `transport: 'socket'` turns Slack's requests into Socket Mode envelopes over a local
 * WebSocket (SLACK_APP_TOKEN, no signing secret, no /slack routes) instead of signed HTTP.
 */
export async function startSlackSystem(
  options: {
    env?: Record<string, string>;
    worker?: boolean;
    botToken?: boolean;
    notifier?: boolean;
    transport?: 'http' | 'socket';
  } = {},
): Promise<SlackSystem> {
  const withBot = options.botToken !== false;
  const socket = options.transport === 'socket' ? await startFakeSocketMode() : undefined;
  const fake = await startFakeSlack({
    ...(withBot ? { botToken: BOT_TOKEN } : {}),
    ...(socket ? { socketMode: { appToken: APP_TOKEN, url: socket.url } } : {}),
  });
  const sys = await startTestSystem({
    ...(options.worker === false ? { worker: false } : {}),
    env: {
      ...(socket ? { SLACK_APP_TOKEN: APP_TOKEN } : { SLACK_SIGNING_SECRET: SIGNING_SECRET }),
      ...(withBot ? { SLACK_BOT_TOKEN: BOT_TOKEN } : {}),
      SLACK_API_URL: fake.apiUrl,
      SLACK_APPROVERS: APPROVER,
      ...options.env,
    },
  });
  const services = createSlackServices(sys.runtime)!;
  const notifier = options.notifier === false ? undefined : services.createNotifier({ blockMs: 200, refreshMs: 1000 });
  notifier?.start();
  const poll = <T>(read: () => Promise<T | undefined>, timeoutMs: number, what: () => string): Promise<T> =>
    eventually(what, read, { timeoutMs, intervalMs: 25 });
  const answers: string[] = [];
  const commandMs: number[] = [];
  let hooks = 0;
  await sys.api.socketMode?.connected;
  /** One request as Slack sends it: signed HTTP, or the same payload in a Socket Mode envelope. */
  const send = async (
    route: 'commands' | 'interactions' | 'events',
    body: string,
    contentType?: string,
  ): Promise<{ status: number; text: string }> => {
    if (socket) {
      const type = route === 'commands' ? 'slash_commands' : route === 'interactions' ? 'interactive' : 'events_api';
      const payload =
        route === 'commands'
          ? Object.fromEntries(new URLSearchParams(body))
          : JSON.parse(route === 'interactions' ? (new URLSearchParams(body).get('payload') ?? '{}') : body);
      const ack = await socket.deliver(type, payload);
      return { status: 200, text: Object.keys(ack).length > 0 ? JSON.stringify(ack) : '' };
    }
    const res = await postSigned(`${sys.api.url}/slack/${route}`, SIGNING_SECRET, body, {
      ...(contentType ? { contentType } : {}),
    });
    return { status: res.status, text: await res.text() };
  };
  return {
    sys,
    fake,
    socket,
    services,
    notifier,
    answers,
    commandMs,
    async command(fields) {
      const body = slashCommandBody({
        ...fields,
        response_url: fields.response_url ?? fake.responseUrl(`cmd${++hooks}`),
      });
      const started = performance.now();
      const { status, text } = await send('commands', body);
      commandMs.push(performance.now() - started);
      answers.push(text);
      return { status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    },
    async click(input) {
      const body = blockActionsBody({ ...input, responseUrl: fake.responseUrl(input.hook) });
      const { status, text } = await send('interactions', body);
      answers.push(text);
      return status;
    },
    async event(event, eventId) {
      const { status, text } = await send('events', eventCallbackBody(event, eventId), 'application/json');
      answers.push(text);
      return status;
    },
    waitForStatus(id, statuses, timeoutMs = 30_000) {
      let last = '';
      return poll(
        async () => {
          const op = await sys.runtime.store.get(id);
          last = `${op.status} ${op.error ?? ''}`;
          return statuses.includes(op.status) ? op : undefined;
        },
        timeoutMs,
        () => `operation ${id} is still ${last}`,
      );
    },
    waitForEvent(id, match, timeoutMs = 30_000) {
      return poll(
        async () => (await sys.runtime.events.list(id)).find(match),
        timeoutMs,
        () => `no such event on ${id}`,
      );
    },
    async threadOf(id) {
      await poll(
        async () => (await sys.runtime.events.list(id)).find((e) => e.type === 'slack_thread'),
        10_000,
        () => `no channel message recorded on ${id}`,
      );
      return (await sys.runtime.store.get(id)).requester.thread!;
    },
    async stop() {
      await notifier?.close();
      await sys.stop();
      await fake.close();
      await socket?.close();
    },
  };
}
