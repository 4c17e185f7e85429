import { signSlackRequest } from '@pullwright/slack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockActionsBody, postSigned, slashCommandBody, VERIFICATION_TOKEN } from './support/fake-slack-requests.ts';
import { CHANNEL, REQUESTER, SIGNING_SECRET, type SlackSystem, startSlackSystem } from './support/fake-slack-system.ts';
import { createSampleRepo } from './support/sample-repo.ts';

// No worker: whatever is enqueued stays visible in the queue.
describe('Slack requests: signatures, parsing, retries', () => {
  let s: SlackSystem;
  let repo: string;
  beforeAll(async () => {
    s = await startSlackSystem({ worker: false, env: { SLACK_CHANNEL_REPOS: 'C0MAPPED1=acme/slugify' } });
    repo = await createSampleRepo(s.sys.runtime.localForge!);
  });
  afterAll(async () => {
    // Slack shows an error to the user when a command is not answered within 3 s.
    if (s) expect(Math.max(...s.commandMs)).toBeLessThan(3000);
    await s?.stop();
  });

  const nothingEnqueued = async () => {
    expect(await s.sys.runtime.store.list()).toEqual([]);
    const counts = await s.sys.runtime.queue.counts();
    expect([counts.waiting, counts.prioritized]).toEqual([0, 0]);
  };

  describe('refuses unsigned or badly signed requests with 401 and enqueues nothing', () => {
    const url = () => `${s.sys.api.url}/slack/commands`;
    const body = () =>
      slashCommandBody({
        command: '/debug',
        text: `${repo} slugify keeps spaces`,
        response_url: s.fake.responseUrl('x'),
      });
    const cases: [string, () => Promise<Response>][] = [
      ['wrong secret', () => postSigned(url(), 'not-the-signing-secret', body())],
      [
        'timestamp 6 minutes old',
        () => postSigned(url(), SIGNING_SECRET, body(), { timestamp: Math.floor(Date.now() / 1000) - 360 }),
      ],
      [
        'timestamp 6 minutes ahead',
        () => postSigned(url(), SIGNING_SECRET, body(), { timestamp: Math.floor(Date.now() / 1000) + 360 }),
      ],
      [
        'no signature header',
        () => postSigned(url(), SIGNING_SECRET, body(), { headers: { 'x-slack-signature': undefined } }),
      ],
      [
        'no timestamp header',
        () => postSigned(url(), SIGNING_SECRET, body(), { headers: { 'x-slack-request-timestamp': undefined } }),
      ],
      [
        'no headers at all',
        () =>
          fetch(url(), {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: body(),
          }),
      ],
      [
        'body altered after signing',
        () => {
          const signed = signSlackRequest(SIGNING_SECRET, body());
          return fetch(url(), {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', ...signed },
            body: body().replace('slugify+keeps+spaces', 'drop+the+database'),
          });
        },
      ],
      [
        'signed as form, re-encoded as JSON',
        () => {
          const signed = signSlackRequest(SIGNING_SECRET, body());
          return fetch(url(), {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...signed },
            body: JSON.stringify(Object.fromEntries(new URLSearchParams(body()))),
          });
        },
      ],
    ];
    it.each(cases)('%s', async (_name, send) => {
      const res = await send();
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: { code: 'unauthorized', message: 'invalid slack signature' } });
      await nothingEnqueued();
    });

    it('on the interactions and events endpoints too', async () => {
      const click = blockActionsBody({
        user: REQUESTER,
        actionId: 'pw_approve',
        value: 'abcdef123456:abcdef1',
        responseUrl: s.fake.responseUrl('c'),
      });
      expect((await postSigned(`${s.sys.api.url}/slack/interactions`, 'wrong-secret-123', click)).status).toBe(401);
      const challenge = JSON.stringify({ type: 'url_verification', challenge: 'abc', token: 't' });
      const events = await postSigned(`${s.sys.api.url}/slack/events`, 'wrong-secret-123', challenge, {
        contentType: 'application/json',
      });
      expect(events.status).toBe(401);
      expect(await events.text()).not.toContain('abc"');
    });
  });

  it('answers the Events API URL check with the challenge', async () => {
    const body = JSON.stringify({
      token: VERIFICATION_TOKEN,
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
      type: 'url_verification',
    });
    const res = await postSigned(`${s.sys.api.url}/slack/events`, SIGNING_SECRET, body, {
      contentType: 'application/json',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' });
  });

  it('answers empty or malformed text with an ephemeral usage message and an example', async () => {
    for (const [command, text] of [
      ['/debug', ''],
      ['/implement', `${repo} add x --budget lots`],
      ['/cancel', ''],
    ]) {
      const res = await s.command({ command: command!, text: text! });
      expect(res.status).toBe(200);
      expect(res.body.response_type).toBe('ephemeral');
      expect(String(res.body.text)).toMatch(/Usage: `\//);
      expect(String(res.body.text)).toContain('Example');
    }
    await nothingEnqueued();
  });

  it('refuses request text with a NUL or another control character, naming it, and enqueues nothing', async () => {
    // (A lone surrogate cannot arrive here: form encoding is UTF-8, which has no surrogates.)
    for (const [text, problem] of [
      [`${repo} fix\u0000this`, /U\+0000 \(NUL\)/],
      [`${repo} fix \u001b[31mthis`, /U\+001B/],
    ] as const) {
      const res = await s.command({ command: '/fix', text });
      expect(res.status).toBe(200);
      expect(res.body.response_type).toBe('ephemeral');
      expect(String(res.body.text)).toMatch(problem);
    }
    await nothingEnqueued();
  });

  it('refuses a repository the forge does not have, and asks for one when the channel has none', async () => {
    const unknown = await s.command({ command: '/debug', text: 'acme/nope slugify keeps spaces' });
    expect(unknown.body.text).toMatch(/repository acme\/nope is not available/);
    const none = await s.command({ command: '/debug', text: 'slugify keeps spaces' });
    expect(none.body.text).toMatch(/name the repository/);
    await nothingEnqueued();
  });

  it('a retried delivery (same trigger_id) enqueues one operation', async () => {
    const fields = {
      command: '/debug',
      text: `${repo} slugify keeps spaces --base main --budget 2 --auto`,
      trigger_id: '13345224609.738474920.8088930838d88f008e0',
    };
    const [a, b] = await Promise.all([s.command(fields), s.command(fields)]);
    const again = await s.command(fields);
    const ops = await s.sys.runtime.store.list();
    expect(ops).toHaveLength(1);
    const op = ops[0]!;
    for (const r of [a!, b!, again]) {
      expect(r.status).toBe(200);
      expect(r.body.response_type).toBe('ephemeral');
      expect(String(r.body.text)).toContain(op.id);
    }
    expect(op).toMatchObject({
      type: 'debug',
      repo,
      baseBranch: 'main',
      description: 'slugify keeps spaces',
      requester: { source: 'slack', user: REQUESTER, channel: CHANNEL },
    });
    // Run jobs carry their operation's priority: BullMQ keeps them in `prioritized`.
    expect((await s.sys.runtime.queue.counts()).prioritized).toBe(1);
    const session = await s.sys.runtime.redis.hgetall(`${s.sys.runtime.config.redisPrefix}:slack:op:{${op.id}}`);
    expect(session).toMatchObject({ channel: CHANNEL, user: REQUESTER, budgetUsd: '2', auto: '1', delivery: 'bot' });

    // /status with the id, then /cancel of the queued operation (by its requester).
    const status = await s.command({ command: '/status', text: op.id });
    expect(JSON.stringify(status.body)).toContain(`\`${op.id}\``);
    const list = await s.command({ command: '/status', text: '' });
    expect(JSON.stringify(list.body)).toContain(op.id);
    const refused = await s.command({ command: '/cancel', text: op.id, user_id: 'UOTHER001' });
    expect(refused.body.text).toMatch(/Only the requester or an approver/);
    const cancel = await s.command({ command: '/cancel', text: op.id });
    expect(cancel.body.text).toBe(`Cancelled ${op.id}.`);
    expect((await s.sys.runtime.store.get(op.id)).status).toBe('cancelled');
    const twice = await s.command({ command: '/cancel', text: op.id });
    expect(twice.body.text).toMatch(/cannot cancel an operation that is cancelled/);
  });

  it("takes the repository from the channel's mapping", async () => {
    const res = await s.command({ command: '/fix', text: 'slugify keeps spaces', channel_id: 'C0MAPPED1' });
    const id = /`([a-z0-9]+)`/.exec(String(res.body.blocks ? JSON.stringify(res.body.blocks) : res.body.text))?.[1];
    const op = await s.sys.runtime.store.get(id!);
    expect(op).toMatchObject({ type: 'fix', repo: 'acme/slugify', requester: { channel: 'C0MAPPED1' } });
  });

  it('a retried event delivery reaches the inbox once', async () => {
    const res = await s.command({ command: '/debug', text: `${repo} slugify keeps spaces` });
    const id = /`([a-z0-9]{12,})`/.exec(JSON.stringify(res.body))![1]!;
    const rootTs = await s.threadOf(id);
    expect(rootTs).toMatch(/^\d+\.\d+$/);
    const reply = {
      type: 'message',
      channel: CHANNEL,
      user: REQUESTER,
      text: 'use a regex',
      ts: '1700000999.000100',
      thread_ts: rootTs,
      event_ts: '1700000999.000100',
      channel_type: 'channel',
    };
    expect(await s.event(reply, 'Ev0RETRY01')).toBe(200);
    expect(await s.event(reply, 'Ev0RETRY01')).toBe(200);
    // Bot posts, edits and top-level messages are not replies.
    await s.event({ ...reply, bot_id: 'BBOT0001', text: 'bot' });
    await s.event({ ...reply, subtype: 'message_changed', text: 'edit' });
    await s.event({ ...reply, thread_ts: undefined, text: 'top' });
    const inbox = await s.sys.runtime.inbox.drain(id);
    expect(inbox.map((m) => [m.from, m.source, m.text])).toEqual([[REQUESTER, 'slack', 'use a regex']]);

    // Once the operation is over, a reply is not queued for a model that will never read it, and the author is told.
    await s.command({ command: '/cancel', text: id });
    await s.event({ ...reply, ts: '1700001999.000100', text: 'too late' });
    expect(await s.sys.runtime.inbox.drain(id)).toEqual([]);
    expect(s.fake.callsTo('chat.postEphemeral').at(-1)?.args).toMatchObject({
      channel: CHANNEL,
      user: REQUESTER,
      text: `${id} is cancelled; your message was not passed to the model.`,
    });
  });
});
