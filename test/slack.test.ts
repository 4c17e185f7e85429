import { TRANSCRIPT_ARTIFACT } from '@pullwright/queue';
import { sampleSecret } from '@pullwright/security/credential-samples';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CapturedCall } from './support/fake-slack.ts';
import {
  APP_TOKEN,
  APPROVER,
  BOT_TOKEN,
  CHANNEL,
  REQUESTER,
  type SlackSystem,
  startSlackSystem,
} from './support/fake-slack-system.ts';
import { createSampleRepo } from './support/sample-repo.ts';

/** Planted in an operation's description: it must never reach Slack. */
const PLANTED = sampleSecret('slack-bot-token', 16);

function opIdOf(answer: Record<string, unknown>): string {
  return /`([a-z0-9]{12,})`/.exec(JSON.stringify(answer))![1]!;
}

const texts = (calls: CapturedCall[]) => calls.map((c) => String(c.args.text));

/** Every byte sent to Slack: Web API bodies, response_url posts and the API's own answers. */
function expectNoSecrets(s: SlackSystem) {
  expect(s.fake.calls.length).toBeGreaterThan(0);
  for (const payload of [...s.fake.calls.map((c) => c.raw), ...s.answers]) {
    expect(payload).not.toContain(PLANTED);
    expect(payload).not.toContain(BOT_TOKEN);
    expect(payload).not.toContain(APP_TOKEN);
    expect(payload.toLowerCase()).not.toContain('plantedtokeninthedescription');
    // Nothing credential-shaped at all. (A short fragment such as `xoxb-5555` can appear: the
    // pipeline derives the branch name from the first 40 characters of the description.)
    expect(payload).not.toMatch(/xox[abposr]-[A-Za-z0-9-]{10,}/i);
  }
  // The token goes where Slack reads it, and only there (Socket Mode opens with the app token).
  for (const c of s.fake.calls.filter((c) => c.method !== 'response_url' && c.method !== 'apps.connections.open'))
    expect(c.authorization).toBe(`Bearer ${BOT_TOKEN}`);
}

/** A sample repository whose test suite takes ~2.5 s, so an operation stays running long enough to talk to. */
const SLOW_TEST = "import { test } from 'node:test';\ntest('slow', () => new Promise((r) => setTimeout(r, 2500)));\n";

// The whole thread-as-session story twice: Slack's requests as signed HTTP, and the same
// payloads as Socket Mode envelopes over a local WebSocket (no public URL).
describe.each(['http', 'socket'] as const)('Slack over %s: thread as session, with a bot token', (transport) => {
  let s: SlackSystem;
  beforeAll(async () => {
    s = await startSlackSystem({ transport });
    await createSampleRepo(s.sys.runtime.localForge!);
    await createSampleRepo(s.sys.runtime.localForge!, 'acme/slow', { 'test/slow.test.js': SLOW_TEST });
  });
  afterAll(async () => s?.stop());
  afterEach(() => expectNoSecrets(s));

  it('/debug runs to a PR with each step in the thread; an outsider cannot approve, an approver merges', async () => {
    const answer = await s.command({
      command: '/debug',
      text: `acme/slugify slugify keeps spaces (seen with ${PLANTED})`,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.response_type).toBe('ephemeral');
    const id = opIdOf(answer.body);

    const ready = await s.waitForStatus(id, ['awaiting_approval', 'failed']);
    expect(ready.status).toBe('awaiting_approval');
    const rootTs = await s.threadOf(id);
    expect(ready.requester.thread).toBe(rootTs);
    await s.fake.waitFor(
      (calls) => calls.some((c) => c.args.thread_ts === rootTs && JSON.stringify(c.args.blocks).includes('pw_approve')),
      10_000,
      'PR message',
    );

    // One channel message, posted once, kept current with chat.update.
    const roots = s.fake
      .callsTo('chat.postMessage')
      .filter((c) => !c.args.thread_ts && String(c.args.text).includes(id));
    expect(roots).toHaveLength(1);
    expect(roots[0]!.args.channel).toBe(CHANNEL);
    const updates = s.fake.callsTo('chat.update').filter((c) => c.args.ts === rootTs);
    expect(updates.length).toBeGreaterThan(1);

    const thread = s.fake.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === rootTs);
    const story = texts(thread).join('\n');
    for (const step of [
      /Working copy ready on branch agent\//,
      /The model is working/,
      /test failed \(exit 1\)/,
      /The model finished: ready\./,
      /Running the repository's checks on src\/slugify\.js/,
      /test passed/,
      /Pushed agent\/.* at [0-9a-f]{12}/,
      /Pull request #1 is ready for review/,
    ]) {
      expect(story).toMatch(step);
    }
    const prMessage = thread.find((c) => JSON.stringify(c.args.blocks).includes('pw_approve'))!;
    const headSha = ready.pullRequest!.headSha;
    expect(JSON.stringify(prMessage.args.blocks)).toContain(`"value":"${id}/${headSha}"`);

    // Someone not on the approvers list: refused, ephemerally, and nothing changes.
    expect(
      await s.click({ user: 'UOTHER001', actionId: 'pw_approve', value: `${id}:${headSha}`, hook: 'outsider' }),
    ).toBe(200);
    const refusal = s.fake.calls.find((c) => c.hook === 'outsider');
    expect(refusal?.args).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(String(refusal?.args.text)).toMatch(/Only approvers can approve/);
    expect((await s.sys.runtime.store.get(id)).status).toBe('awaiting_approval');

    // A click on a stale sha is refused too: the approval is bound to what the approver saw.
    await s.click({ user: APPROVER, actionId: 'pw_approve', value: `${id}:${'0'.repeat(40)}`, hook: 'stale' });
    expect(String(s.fake.calls.find((c) => c.hook === 'stale')?.args.text)).toMatch(/the branch moved/);
    expect((await s.sys.runtime.store.get(id)).status).toBe('awaiting_approval');

    expect(await s.click({ user: APPROVER, actionId: 'pw_approve', value: `${id}/${headSha}`, hook: 'approver' })).toBe(
      200,
    );
    const merged = await s.waitForStatus(id, ['merged', 'failed']);
    expect(merged.status).toBe('merged');
    expect(merged.approval).toMatchObject({ by: APPROVER, source: 'slack', headSha });

    await s.fake.waitFor(
      (calls) => texts(calls.filter((c) => c.args.thread_ts === rootTs)).some((t) => t.includes('Merged as')),
      10_000,
      'merged note',
    );
    const after = texts(s.fake.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === rootTs)).join('\n');
    expect(after).toMatch(new RegExp(`Approved by <@${APPROVER}> at ${headSha.slice(0, 12)}`));
    // The buttons are gone once decided, and the channel message shows the end.
    await s.fake.waitFor(
      (calls) =>
        calls.some((c) => c.method === 'chat.update' && c.args.ts === rootTs && String(c.args.text).endsWith('merged')),
      10_000,
      'final channel message',
    );
    const prTs = (await s.sys.runtime.redis.hget(`${s.sys.runtime.config.redisPrefix}:slack:op:{${id}}`, 'prTs'))!;
    const prUpdates = s.fake.callsTo('chat.update').filter((c) => c.args.ts === prTs);
    expect(prUpdates.length).toBeGreaterThan(0);
    expect(JSON.stringify(prUpdates.at(-1)!.args.blocks)).not.toContain('pw_approve');
    const finalRoot = s.fake
      .callsTo('chat.update')
      .filter((c) => c.args.ts === rootTs)
      .at(-1)!;
    expect(JSON.stringify(finalRoot.args.blocks)).toMatch(/\*merged\*.*tokens \d/);
    // The planted token was in the description, and Slack saw it masked.
    expect(JSON.stringify(roots[0]!.args.blocks)).toContain('[redacted…');
  });

  it('a thread reply reaches the model before its next step, and /cancel stops the running operation', async () => {
    const answer = await s.command({ command: '/debug', text: 'acme/slow slugify keeps spaces' });
    const id = opIdOf(answer.body);
    await s.waitForEvent(id, (e) => e.type === 'step' && e.data.step === 'agent' && e.data.state === 'started');
    const rootTs = await s.threadOf(id);
    expect(rootTs).toBeTruthy();

    const reply = 'Hint from Dana: replace every run of whitespace, not only the first space.';
    const status = await s.event({
      type: 'message',
      channel: CHANNEL,
      user: REQUESTER,
      text: reply,
      ts: '1700001000.000200',
      thread_ts: rootTs,
      event_ts: '1700001000.000200',
      channel_type: 'channel',
    });
    expect(status).toBe(200);
    const read = await s.waitForEvent(id, (e) => e.type === 'message');
    expect(read.data).toMatchObject({ from: REQUESTER, source: 'slack', text: reply });
    // The loop logs the message to the transcript right after the event, before it calls the model.
    await expect
      .poll(async () => (await s.sys.runtime.artifacts.read(id, TRANSCRIPT_ARTIFACT))?.content, { timeout: 5000 })
      .toContain(`${REQUESTER} (slack): ${reply}`);

    const cancel = await s.command({ command: '/cancel', text: id });
    expect(cancel.body).toMatchObject({
      response_type: 'ephemeral',
      text: `Cancelling ${id}: it stops after its current step.`,
    });
    const cancelled = await s.waitForStatus(id, ['cancelled', 'failed', 'awaiting_approval']);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.error).toBe('cancelled on request');
    await s.fake.waitFor(
      (calls) => texts(calls.filter((c) => c.args.thread_ts === rootTs)).some((t) => t.includes('Cancelled')),
      10_000,
      'cancelled note',
    );
    const story = texts(s.fake.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === rootTs)).join('\n');
    expect(story).toContain(`The model read the message from <@${REQUESTER}>`);
    expect(story).toContain(`Cancel requested by <@${REQUESTER}>`);
  });

  it('a ❌ on the channel message stops the operation; only the requester or an approver may', async () => {
    const id = opIdOf((await s.command({ command: '/implement', text: 'acme/slow make slugify handle spaces' })).body);
    await s.waitForEvent(id, (e) => e.type === 'step' && e.data.step === 'agent');
    const rootTs = await s.threadOf(id);
    const reaction = (user: string) => ({
      type: 'reaction_added',
      user,
      reaction: 'x',
      item: { type: 'message', channel: CHANNEL, ts: rootTs },
      item_user: 'UBOT0001',
      event_ts: '1700001100.000100',
    });

    await s.event(reaction('UOTHER001'));
    expect(s.fake.callsTo('chat.postEphemeral').at(-1)?.args).toMatchObject({ channel: CHANNEL, user: 'UOTHER001' });
    expect((await s.sys.runtime.store.get(id)).cancelRequested).toBe(false);

    await s.event(reaction(APPROVER));
    const cancelled = await s.waitForStatus(id, ['cancelled', 'failed', 'awaiting_approval']);
    expect(cancelled.status).toBe('cancelled');
  });
});

describe('Slack without a bot token: milestones through response_url', () => {
  let s: SlackSystem;
  beforeAll(async () => {
    s = await startSlackSystem({ botToken: false });
    await createSampleRepo(s.sys.runtime.localForge!);
  });
  afterAll(async () => s?.stop());

  it('answers in the channel, posts the PR with buttons to the response URL, and merges on Approve', async () => {
    const answer = await s.command({
      command: '/debug',
      text: 'acme/slugify slugify keeps spaces',
      response_url: s.fake.responseUrl('cmd-fallback'),
    });
    expect(answer.body.response_type).toBe('in_channel');
    const id = opIdOf(answer.body);
    const ready = await s.waitForStatus(id, ['awaiting_approval', 'failed']);
    expect(ready.status).toBe('awaiting_approval');
    await s.fake.waitFor(
      (calls) => calls.some((c) => c.hook === 'cmd-fallback' && JSON.stringify(c.args.blocks).includes('pw_approve')),
      10_000,
      'PR milestone',
    );
    const milestone = s.fake.calls.find((c) => c.hook === 'cmd-fallback')!;
    expect(milestone.args).toMatchObject({ response_type: 'in_channel', replace_original: false });

    await s.click({
      user: APPROVER,
      actionId: 'pw_approve',
      value: `${id}:${ready.pullRequest!.headSha}`,
      hook: 'click',
    });
    expect((await s.waitForStatus(id, ['merged', 'failed'])).status).toBe('merged');
    await s.fake.waitFor(
      (calls) => calls.some((c) => c.hook === 'cmd-fallback' && String(c.args.text).includes('Merged')),
      10_000,
      'merged milestone',
    );
    // Within Slack's limit of 5 posts per response URL, and no Web API calls at all.
    expect(s.fake.calls.filter((c) => c.hook === 'cmd-fallback').length).toBeLessThanOrEqual(5);
    expect(s.fake.calls.filter((c) => c.method !== 'response_url')).toEqual([]);
  });
});
