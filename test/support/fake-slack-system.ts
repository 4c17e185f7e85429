import { createSlackServices, type SlackServices } from '@pullwright/api';
import type { Operation, OperationEvent, OperationStatus } from '@pullwright/core';
import type { SlackNotifier } from '@pullwright/slack';
import { type FakeSlack, startFakeSlack } from './fake-slack.ts';
import {
  blockActionsBody,
  eventCallbackBody,
  postSigned,
  type SlashCommandFields,
  slashCommandBody,
} from './fake-slack-requests.ts';
import { startTestSystem, type TestSystem } from './test-runtime.ts';

export const SIGNING_SECRET = 'test-signing-secret-4c1f9a0b7d2e';
/** Shaped like a real bot token, so both the exact-value and the pattern redaction are exercised. */
export const BOT_TOKEN = 'xoxb-1029384756-5647382910-TestBotTokenValueAbCdEf';
export const APPROVER = 'UAPPROVE01';
export const REQUESTER = 'UDEV00001';
export const CHANNEL = 'C0DEV0001';

export interface SlackSystem {
  sys: TestSystem;
  fake: FakeSlack;
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
  click(input: { user: string; actionId: string; value: string; hook: string }): Promise<number>;
  event(event: Record<string, unknown>, eventId?: string): Promise<number>;
  waitForStatus(id: string, statuses: OperationStatus[], timeoutMs?: number): Promise<Operation>;
  waitForEvent(id: string, match: (e: OperationEvent) => boolean, timeoutMs?: number): Promise<OperationEvent>;
  /** The ts of the operation's channel message, once the notifier has posted it and recorded it on the operation. */
  threadOf(id: string): Promise<string>;
  stop(): Promise<void>;
}

/** A test system with Slack switched on against a fake Slack, and a notifier that polls fast. */
export async function startSlackSystem(
  options: { env?: Record<string, string>; worker?: boolean; botToken?: boolean; notifier?: boolean } = {},
): Promise<SlackSystem> {
  const withBot = options.botToken !== false;
  const fake = await startFakeSlack(withBot ? { botToken: BOT_TOKEN } : {});
  const sys = await startTestSystem({
    ...(options.worker === false ? { worker: false } : {}),
    env: {
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      ...(withBot ? { SLACK_BOT_TOKEN: BOT_TOKEN } : {}),
      SLACK_API_URL: fake.apiUrl,
      SLACK_APPROVERS: APPROVER,
      ...options.env,
    },
  });
  const services = createSlackServices(sys.runtime)!;
  const notifier = options.notifier === false ? undefined : services.createNotifier({ blockMs: 200, refreshMs: 1000 });
  notifier?.start();
  const poll = async <T>(read: () => Promise<T | undefined>, timeoutMs: number, what: () => string): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await read();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const answers: string[] = [];
  const commandMs: number[] = [];
  let hooks = 0;
  return {
    sys,
    fake,
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
      const res = await postSigned(`${sys.api.url}/slack/commands`, SIGNING_SECRET, body);
      const text = await res.text();
      commandMs.push(performance.now() - started);
      answers.push(text);
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    },
    async click(input) {
      const body = blockActionsBody({ ...input, responseUrl: fake.responseUrl(input.hook) });
      const res = await postSigned(`${sys.api.url}/slack/interactions`, SIGNING_SECRET, body);
      answers.push(await res.text());
      return res.status;
    },
    async event(event, eventId) {
      const body = eventCallbackBody(event, eventId);
      const res = await postSigned(`${sys.api.url}/slack/events`, SIGNING_SECRET, body, {
        contentType: 'application/json',
      });
      answers.push(await res.text());
      return res.status;
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
    },
  };
}
