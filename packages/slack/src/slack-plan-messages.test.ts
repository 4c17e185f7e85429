import { emptyUsage, type Operation, Plan } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import {
  PLAN_CANCEL_ACTION,
  PLAN_MODIFY_ACTION,
  PLAN_NOTE_BLOCK,
  PLAN_START_ACTION,
  SLACK_TEXT_LIMIT,
  SlackMessages,
} from './slack-messages.ts';

const messages = new SlackMessages('https://pw.example.com');

const plan = Plan.parse({
  summary: 'Rate-limit <!channel> logins & signups',
  steps: [
    { title: 'Add a limiter', files: ['src/limit.ts'], acceptance: 'x' },
    { title: 'Wire it in', files: [], acceptance: 'y' },
  ],
  risks: ['Shared IPs hit the limit sooner'],
});

function op(overrides: Partial<Operation> = {}): Operation {
  return {
    id: 'lx2k9a3f01ab',
    type: 'implement',
    repo: 'acme/api',
    baseBranch: 'main',
    description: 'rate limiting',
    context: {},
    requester: { source: 'slack', user: 'UDEV00001' },
    priority: 'medium',
    targetFiles: [],
    status: 'running',
    version: 3,
    plan,
    filesChanged: [],
    checks: [],
    findings: [],
    usage: emptyUsage(),
    checkpoints: [],
    cancelRequested: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:01:00.000Z',
    ...overrides,
  };
}

describe('plan confirmation messages', () => {
  it('shows summary, steps with files and risks, escaped, with a note box and the three buttons', () => {
    const note = messages.planConfirmation(op(), plan);
    expect(note).toMatchObject({ plan: true, milestone: true, approval: false });
    const blocks = JSON.stringify(note.blocks);
    expect(blocks).toContain('Rate-limit &lt;!channel&gt; logins &amp; signups');
    expect(blocks).not.toContain('<!channel>');
    expect(blocks).toContain('1. Add a limiter (`src/limit.ts`)');
    expect(blocks).toContain('2. Wire it in');
    expect(blocks).toContain('Shared IPs hit the limit sooner');
    expect(blocks).toContain(`"block_id":"${PLAN_NOTE_BLOCK}"`);
    for (const action of [PLAN_START_ACTION, PLAN_MODIFY_ACTION, PLAN_CANCEL_ACTION])
      expect(blocks).toContain(`"action_id":"${action}","text":{"type":"plain_text"`);
    expect(blocks).toContain('"value":"lx2k9a3f01ab"');
  });

  it('cuts a huge plan to Slack limits with a dashboard link', () => {
    const steps = Array.from({ length: 400 }, (_, i) => ({
      title: `step ${i} ${'x'.repeat(40)}`,
      files: [],
      acceptance: 'done',
      tests: [],
    }));
    const note = messages.planConfirmation(op(), { summary: 's', steps, risks: [] });
    for (const b of note.blocks ?? []) {
      const text = (b as { text?: { text: string } }).text?.text ?? '';
      expect(text.length).toBeLessThanOrEqual(SLACK_TEXT_LIMIT + 120);
    }
    expect(JSON.stringify(note.blocks)).toContain('https://pw.example.com/#/op/lx2k9a3f01ab');
  });

  it('the channel message says the operation waits for Start', () => {
    const event = (state: string) => ({
      id: '1-0',
      ts: '',
      opId: 'lx2k9a3f01ab',
      type: 'plan_confirmation' as const,
      data: { state },
    });
    expect(messages.step(event('pending'))).toBe('waiting for Start on the plan');
    expect(messages.step(event('modified'))).toBe('plan modified');
  });

  it('an unreadable plan still gives a message with buttons', () => {
    expect(JSON.stringify(messages.planConfirmation(op(), undefined).blocks)).toContain(PLAN_START_ACTION);
  });

  it('once decided: the same plan, who decided what, no buttons', () => {
    const at = '2026-01-01T00:02:00.000Z';
    const started = messages.planDecided(
      op({ planConfirmation: { state: 'started', since: at, by: 'UAPPROVE01', at } }),
    );
    expect(JSON.stringify(started.blocks)).toContain('Started by <@UAPPROVE01>');
    expect(JSON.stringify(started.blocks)).toContain('Add a limiter');
    expect(JSON.stringify(started.blocks)).not.toContain(PLAN_START_ACTION);
    const modified = messages.planDecided(
      op({ planConfirmation: { state: 'modified', since: at, by: 'UAPPROVE01', at, note: 'no <b>new</b> deps' } }),
    );
    expect(JSON.stringify(modified.blocks)).toContain('Modified by <@UAPPROVE01>: no &lt;b&gt;new&lt;/b&gt; deps');
    const timedOut = messages.planDecided(
      op({
        status: 'cancelled',
        error: 'the plan was not confirmed within 1 h',
        planConfirmation: { state: 'pending', since: at },
      }),
    );
    expect(timedOut.text).toContain('Not started: the plan was not confirmed within 1 h');
  });
});
