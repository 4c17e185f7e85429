import type { Operation } from '@pullwright/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapturedCall } from './support/fake-slack.ts';
import { postSigned } from './support/fake-slack-requests.ts';
import {
  APPROVER,
  CHANNEL,
  REQUESTER,
  SIGNING_SECRET,
  type SlackSystem,
  startSlackSystem,
} from './support/fake-slack-system.ts';
import { createSampleRepo } from './support/sample-repo.ts';

function opIdOf(answer: Record<string, unknown>): string {
  return /`([a-z0-9]{12,})`/.exec(JSON.stringify(answer))![1]!;
}

const blocksOf = (c: CapturedCall) => JSON.stringify(c.args.blocks ?? []);

/** A click on a plan button as Slack posts it, with the text box's content in `state.values`. */
async function clickPlan(
  s: SlackSystem,
  input: { user: string; actionId: string; opId: string; hook: string; note?: string },
): Promise<number> {
  const payload = {
    type: 'block_actions',
    user: { id: input.user, username: 'someone', team_id: 'T0001' },
    api_app_id: 'A0PULLWRT1',
    trigger_id: `13345224609.738474920.${input.hook}`,
    team: { id: 'T0001', domain: 'acme' },
    channel: { id: CHANNEL, name: 'dev' },
    container: { type: 'message', message_ts: '1700000000.000002', channel_id: CHANNEL },
    response_url: s.fake.responseUrl(input.hook),
    state: {
      values: {
        pw_plan_note: { pw_plan_note_input: { type: 'plain_text_input', value: input.note ?? null } },
      },
    },
    actions: [
      {
        action_id: input.actionId,
        block_id: `pw_plan_${input.opId}`,
        text: { type: 'plain_text', text: 'Start' },
        value: input.opId,
        type: 'button',
        action_ts: '1700000100.000002',
      },
    ],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const res = await postSigned(`${s.sys.api.url}/slack/interactions`, SIGNING_SECRET, body);
  return res.status;
}

/** Waits until the operation shows its plan for confirmation, and the plan message is in the thread. */
async function pendingPlan(
  s: SlackSystem,
  id: string,
): Promise<{ op: Operation; planMessage: CapturedCall; planTs: string }> {
  await s.waitForEvent(id, (e) => e.type === 'plan_confirmation' && e.data.state === 'pending');
  const rootTs = await s.threadOf(id);
  await s.fake.waitFor(
    (calls) => calls.some((c) => c.args.thread_ts === rootTs && blocksOf(c).includes('pw_plan_start')),
    10_000,
    'plan message',
  );
  const planMessage = s.fake
    .callsTo('chat.postMessage')
    .find((c) => c.args.thread_ts === rootTs && blocksOf(c).includes('pw_plan_start'))!;
  // The notifier records the plan message's ts right after posting it.
  let planTs: string | undefined;
  for (let i = 0; i < 200 && !planTs; i++) {
    planTs = (await s.services.deps.sessions.get(id))?.planTs || undefined;
    if (!planTs) await new Promise((r) => setTimeout(r, 25));
  }
  expect(planTs).toBeTruthy();
  return { op: await s.sys.runtime.store.get(id), planMessage, planTs: planTs! };
}

/** The chat.update that replaced the plan message's buttons, once it has come. */
async function planUpdate(s: SlackSystem, ts: string): Promise<string> {
  let text = '';
  await s.fake.waitFor(
    (calls) => {
      const u = calls.find((c) => c.method === 'chat.update' && c.args.ts === ts);
      text = u ? `${String(u.args.text)} ${blocksOf(u)}` : '';
      return u !== undefined;
    },
    10_000,
    'plan message update',
  );
  return text;
}

describe('plan confirmation for /implement from Slack', () => {
  let s: SlackSystem;
  beforeAll(async () => {
    s = await startSlackSystem();
    await createSampleRepo(s.sys.runtime.localForge!);
  });
  afterAll(async () => s?.stop());

  it('waits with the plan in the thread; an outsider cannot start it; Start lets it run to a PR', async () => {
    const id = opIdOf(
      (await s.command({ command: '/implement', text: 'acme/slugify make slugify handle spaces' })).body,
    );
    const { op, planMessage, planTs } = await pendingPlan(s, id);
    expect(op.status).toBe('running');
    expect(op.planConfirmation).toMatchObject({ state: 'pending' });
    const shown = blocksOf(planMessage);
    // Summary, steps with their files, risks, and the three buttons.
    expect(shown).toContain('String.prototype.replace');
    expect(shown).toContain('Fix slugify at the root');
    expect(shown).toContain('`src/slugify.js`');
    expect(shown).toContain('Risks');
    for (const action of ['pw_plan_start', 'pw_plan_modify', 'pw_plan_cancel']) expect(shown).toContain(action);

    // The coder has not been asked (and the ordering at the end shows it never was before Start).
    const waiting = await s.sys.runtime.events.list(id);
    expect(waiting.some((e) => e.type === 'phase' && e.data.phase === 'code')).toBe(false);
    expect((await s.sys.runtime.store.get(id)).status).toBe('running');

    expect(await clickPlan(s, { user: 'UOTHER001', actionId: 'pw_plan_start', opId: id, hook: 'outsider' })).toBe(200);
    const refusal = s.fake.calls.find((c) => c.hook === 'outsider');
    expect(String(refusal?.args.text)).toMatch(/Only approvers can start or modify/);
    expect((await s.sys.runtime.store.get(id)).planConfirmation?.state).toBe('pending');

    expect(await clickPlan(s, { user: APPROVER, actionId: 'pw_plan_start', opId: id, hook: 'start' })).toBe(200);
    const ready = await s.waitForStatus(id, ['awaiting_approval', 'failed', 'cancelled'], 60_000);
    expect(ready.status).toBe('awaiting_approval');
    expect(ready.planConfirmation).toMatchObject({ state: 'started', by: APPROVER });
    // Nothing past the plan happened while it waited: in the stream (ordered, append-only) the
    // coder's phase comes after the Start decision, not before it.
    const events = await s.sys.runtime.events.list(id);
    const started = events.findIndex((e) => e.type === 'plan_confirmation' && e.data.state === 'started');
    const coding = events.findIndex((e) => e.type === 'phase' && e.data.phase === 'code');
    expect(started).toBeGreaterThan(-1);
    expect(coding).toBeGreaterThan(started);
    const updated = await planUpdate(s, planTs);
    expect(updated).toContain(`Started by <@${APPROVER}>`);
    expect(updated).not.toContain('pw_plan_start');

    // A second click on the decided plan is refused, and says why.
    await clickPlan(s, { user: APPROVER, actionId: 'pw_plan_start', opId: id, hook: 'again' });
    expect(String(s.fake.calls.find((c) => c.hook === 'again')?.args.text)).toMatch(/already started/);
  });

  it('Modify adds the note to the plan the coder gets; Modify without a note is refused', async () => {
    const id = opIdOf(
      (await s.command({ command: '/implement', text: 'acme/slugify make slugify handle spaces' })).body,
    );
    const { planTs } = await pendingPlan(s, id);

    await clickPlan(s, { user: APPROVER, actionId: 'pw_plan_modify', opId: id, hook: 'empty-note', note: '  ' });
    expect(String(s.fake.calls.find((c) => c.hook === 'empty-note')?.args.text)).toMatch(/Write what should change/);
    expect((await s.sys.runtime.store.get(id)).planConfirmation?.state).toBe('pending');

    const note = 'Also keep a trailing dash out of the slug';
    await clickPlan(s, { user: APPROVER, actionId: 'pw_plan_modify', opId: id, hook: 'modify', note });
    const ready = await s.waitForStatus(id, ['awaiting_approval', 'failed', 'cancelled'], 60_000);
    expect(ready.status).toBe('awaiting_approval');
    expect(ready.planConfirmation).toMatchObject({ state: 'modified', by: APPROVER, note });
    expect(JSON.stringify(ready.plan)).toContain(note);

    // The coder's request (its first message) carries the note as a step of the plan.
    const lines = (await s.sys.transcript(ready.id))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; role?: string; task?: string });
    const taskOf = (role: string) => lines.find((l) => l.kind === 'task' && l.role === role)?.task;
    expect(taskOf('coder')).toContain(note);
    expect(taskOf('planner')).toBeDefined();
    expect(taskOf('planner')).not.toContain(note);
    expect(await planUpdate(s, planTs)).toContain('Modified by');
  });

  it('Cancel on the plan stops the operation before the coder starts', async () => {
    const id = opIdOf(
      (await s.command({ command: '/implement', text: 'acme/slugify make slugify handle spaces' })).body,
    );
    const { planTs } = await pendingPlan(s, id);
    await clickPlan(s, { user: 'UOTHER001', actionId: 'pw_plan_cancel', opId: id, hook: 'outsider-cancel' });
    expect(String(s.fake.calls.find((c) => c.hook === 'outsider-cancel')?.args.text)).toMatch(/may cancel/);

    await clickPlan(s, { user: REQUESTER, actionId: 'pw_plan_cancel', opId: id, hook: 'cancel' });
    const cancelled = await s.waitForStatus(id, ['cancelled', 'failed', 'awaiting_approval']);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.error).toBe('cancelled on request');
    const events = await s.sys.runtime.events.list(id);
    expect(events.some((e) => e.type === 'phase' && e.data.phase === 'code')).toBe(false);
    expect(await planUpdate(s, planTs)).toContain('Not started');
  });

  it('--auto skips the wait', async () => {
    const id = opIdOf(
      (await s.command({ command: '/implement', text: 'acme/slugify make slugify handle spaces --auto' })).body,
    );
    const ready = await s.waitForStatus(id, ['awaiting_approval', 'failed', 'cancelled'], 60_000);
    expect(ready.status).toBe('awaiting_approval');
    expect(ready.confirmPlan).toBe(false);
    expect(ready.planConfirmation).toBeUndefined();
    expect((await s.sys.runtime.events.list(id)).some((e) => e.type === 'plan_confirmation')).toBe(false);
  });
});

describe('POST /v1/operations/:id/plan', () => {
  let s: SlackSystem;
  beforeAll(async () => {
    s = await startSlackSystem({ env: { PLAN_CONFIRMATION_TIMEOUT_MS: '60000' } });
    await createSampleRepo(s.sys.runtime.localForge!);
  });
  afterAll(async () => s?.stop());

  it('400 for a bad body, 404 for an unknown operation, 409 when no plan waits; Start from any source that asked', async () => {
    const plan = (id: string, body: unknown) => s.sys.request('POST', `/v1/operations/${id}/plan`, body);
    expect((await plan('nosuchop123456', { decision: 'start' })).status).toBe(404);

    const queued = await s.sys.request('POST', '/v1/operations', {
      type: 'implement',
      repo: 'acme/slugify',
      description: 'nobody asked for a confirmation',
    });
    const other = (await queued.json()) as Operation;
    expect((await plan(other.id, { decision: 'start' })).status).toBe(409);
    expect((await plan(other.id, { decision: 'go' })).status).toBe(400);
    expect((await plan(other.id, { decision: 'modify' })).status).toBe(400);
    expect((await plan(other.id, { decision: 'start', extra: 1 })).status).toBe(400);

    // An API request that asks for confirmation (`confirmPlan: true`) waits like a Slack one.
    const input: Parameters<typeof s.sys.runtime.actions.create>[0] = {
      type: 'fix',
      repo: 'acme/slugify',
      baseBranch: 'main',
      description: 'slugify keeps spaces',
      requester: { source: 'api', user: 'api' },
      confirmPlan: true,
    };
    const { op } = await s.sys.runtime.actions.create(input);
    await s.waitForEvent(op.id, (e) => e.type === 'plan_confirmation' && e.data.state === 'pending');
    const started = await plan(op.id, { decision: 'start', user: 'reviewer' });
    expect(started.status).toBe(200);
    expect(((await started.json()) as Operation).planConfirmation).toMatchObject({ state: 'started', by: 'reviewer' });
    const again = await plan(op.id, { decision: 'start' });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('conflict');
    const ready = await s.waitForStatus(op.id, ['awaiting_approval', 'failed', 'cancelled'], 60_000);
    expect(ready.status).toBe('awaiting_approval');
  });
});

describe('plan confirmation timeout', () => {
  let s: SlackSystem;
  beforeAll(async () => {
    s = await startSlackSystem({ env: { PLAN_CONFIRMATION_TIMEOUT_MS: '800' } });
    await createSampleRepo(s.sys.runtime.localForge!);
  });
  afterAll(async () => s?.stop());

  it('an unconfirmed plan ends the operation cancelled, with the reason', async () => {
    const id = opIdOf(
      (await s.command({ command: '/implement', text: 'acme/slugify make slugify handle spaces' })).body,
    );
    const cancelled = await s.waitForStatus(id, ['cancelled', 'failed', 'awaiting_approval']);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.error).toBe('the plan was not confirmed within 800 ms');
    const events = await s.sys.runtime.events.list(id);
    expect(events.some((e) => e.type === 'phase' && e.data.phase === 'code')).toBe(false);
  });
});
