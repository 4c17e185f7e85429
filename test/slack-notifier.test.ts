import type { Operation } from '@pullwright/core';
import type { SlackNotifier } from '@pullwright/slack';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHANNEL, REQUESTER, type SlackSystem, startSlackSystem } from './support/fake-slack-system.ts';

// No worker and no pipeline: the test writes the operation's events itself, as the worker would.
describe('SlackNotifier', () => {
  let s: SlackSystem;
  const notifiers: SlackNotifier[] = [];
  beforeEach(async () => {
    s = await startSlackSystem({ worker: false, notifier: false });
  });
  afterEach(async () => {
    await Promise.all(notifiers.splice(0).map((n) => n.close()));
    await s?.stop();
  });

  const notifier = (options: { refreshMs?: number; leaseMs?: number } = {}) => {
    const n = s.services.createNotifier({ blockMs: 100, refreshMs: 60_000, leaseMs: 3000, ...options });
    notifiers.push(n);
    n.start();
    return n;
  };

  async function slackOperation(session: { channel?: string } = {}): Promise<Operation> {
    const { store, events } = s.sys.runtime;
    const channel = session.channel ?? CHANNEL;
    const op = await store.create({
      type: 'debug',
      repo: 'acme/api',
      baseBranch: 'main',
      description: 'TypeError in auth.ts:45',
      requester: { source: 'slack', user: REQUESTER, channel },
    });
    await s.services.deps.sessions.create({
      opId: op.id,
      channel,
      user: REQUESTER,
      delivery: 'bot',
      responseUrl: s.fake.responseUrl(`op-${op.id}`),
      budgetUsd: undefined,
      auto: false,
    });
    await events.append(op.id, 'slack_session', { channel, user: 'U1' });
    return op;
  }

  const threadTexts = (rootTs: string) =>
    s.fake
      .callsTo('chat.postMessage')
      .filter((c) => c.args.thread_ts === rootTs)
      .map((c) => String(c.args.text));
  const rootPosts = (opId: string) =>
    s.fake.callsTo('chat.postMessage').filter((c) => !c.args.thread_ts && String(c.args.text).includes(opId));
  const rootOf = async (opId: string) => {
    await s.fake.waitFor(() => rootPosts(opId).length > 0, 10_000, 'channel message');
    return s.threadOf(opId);
  };
  const waitThread = (rootTs: string, pattern: RegExp) =>
    s.fake.waitFor(() => threadTexts(rootTs).some((t) => pattern.test(t)), 10_000, `thread note ${pattern}`);

  it('a restart neither loses nor repeats an update', async () => {
    const { store, events } = s.sys.runtime;
    const op = await slackOperation();
    const first = notifier();
    const rootTs = await rootOf(op.id);
    await store.transition(op.id, 'running');
    await events.append(op.id, 'step', { step: 'prepare', branch: 'agent/x-typeerror' });
    await waitThread(rootTs, /Working copy ready/);
    await first.close();

    // While no notifier runs, the operation moves on.
    await events.append(op.id, 'step', { step: 'agent', state: 'started', checks: ['test'] });
    await events.append(op.id, 'check', { name: 'test', passed: false, exitCode: 1, durationMs: 1200 });
    await store.end(op.id, { code: 'checks_failed', detail: 'check "test" exited with 1:\nAssertionError' });

    notifier();
    await waitThread(rootTs, /Failed/);
    expect(threadTexts(rootTs)).toEqual([
      ':seedling: Working copy ready on branch agent/x-typeerror.',
      ':robot_face: The model is working. Checks: test.',
      ':x: test failed (exit 1) in 1s.',
      expect.stringMatching(/^:boom: Failed:\n/),
    ]);
    expect(rootPosts(op.id)).toHaveLength(1);
    await s.fake.waitFor(
      () => String(s.fake.callsTo('chat.update').at(-1)?.args.text).endsWith(': failed'),
      5000,
      'final channel message',
    );
    expect(s.fake.callsTo('chat.update').at(-1)!.args).toMatchObject({ channel: CHANNEL, ts: rootTs });
    // Once everything is shown, the operation is no longer followed.
    await expect.poll(() => s.services.deps.sessions.isActive(op.id), { timeout: 5000 }).toBe(false);
  });

  it('only the lease holder posts; another notifier takes over when it stops', async () => {
    const { store, events } = s.sys.runtime;
    const op = await slackOperation();
    const a = notifier();
    const b = notifier();
    const rootTs = await rootOf(op.id);
    await store.transition(op.id, 'running');
    await events.append(op.id, 'step', { step: 'prepare', branch: 'agent/x' });
    await waitThread(rootTs, /Working copy/);
    expect([a.isLeader, b.isLeader].filter(Boolean)).toHaveLength(1);
    const [leader, standby] = a.isLeader ? [a, b] : [b, a];

    await leader.close();
    await events.append(op.id, 'step', { step: 'agent', state: 'started', checks: [] });
    await waitThread(rootTs, /The model is working/);
    expect(standby.isLeader).toBe(true);
    expect(rootPosts(op.id)).toHaveLength(1);
    expect(threadTexts(rootTs)).toHaveLength(2);
  });

  it('keeps the elapsed time current while nothing else happens', async () => {
    const op = await slackOperation();
    notifier({ refreshMs: 300 });
    const rootTs = await rootOf(op.id);
    await s.sys.runtime.store.transition(op.id, 'running');
    const rootUpdates = () => s.fake.callsTo('chat.update').filter((c) => c.args.ts === rootTs).length;
    await s.fake.waitFor(() => rootUpdates() >= 3, 10_000, 'refreshed channel message');
    expect(JSON.stringify(s.fake.callsTo('chat.update').at(-1)!.args.blocks)).toMatch(/elapsed \d+s/);
  });

  it('falls back to the response URL when the bot is not in the channel', async () => {
    s.fake.notInChannel.add('C0PRIVATE1');
    const { store } = s.sys.runtime;
    const op = await slackOperation({ channel: 'C0PRIVATE1' });
    notifier();
    await s.fake.waitFor((calls) => calls.some((c) => c.method === 'chat.postMessage'), 10_000, 'attempted post');
    await store.transition(op.id, 'running');
    await store.end(op.id, { code: 'no_change', detail: 'the model made no changes' });
    await s.fake.waitFor(
      (calls) => calls.some((c) => c.hook === `op-${op.id}`),
      10_000,
      'milestone through response_url',
    );
    const posted = s.fake.calls.filter((c) => c.hook === `op-${op.id}`);
    expect(posted).toHaveLength(1);
    expect(posted[0]!.args).toMatchObject({ response_type: 'in_channel' });
    expect(String(posted[0]!.args.text)).toContain('the model made no changes');
    expect(s.fake.callsTo('chat.postMessage')).toHaveLength(1);
  });
});
