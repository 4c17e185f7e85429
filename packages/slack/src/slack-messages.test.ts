import { randomBytes } from 'node:crypto';
import { emptyUsage, type Operation } from '@pullwright/core';
import { SecretScanner, scanOutbound } from '@pullwright/security';
import { describe, expect, it } from 'vitest';
import { escapeSlackText, formatDuration, SlackMessages } from './slack-messages.ts';
import { mayApprove, mayCancel, slackApprovers } from './slack-permissions.ts';

const messages = new SlackMessages('https://pw.example.com');

function op(overrides: Partial<Operation> = {}): Operation {
  return {
    id: 'lx2k9a3f01ab',
    type: 'debug',
    repo: 'acme/api',
    baseBranch: 'main',
    description: 'TypeError in auth.ts:45',
    context: {},
    requester: { source: 'slack', user: 'UDEV00001', channel: 'C0DEV0001' },
    priority: 'medium',
    targetFiles: [],
    status: 'running',
    version: 3,
    filesChanged: [],
    checks: [],
    findings: [],
    usage: { ...emptyUsage(), inputTokens: 12_345, outputTokens: 678, costUsd: 0.1234 },
    checkpoints: [],
    cancelRequested: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:01:00.000Z',
    ...overrides,
  };
}

describe('SlackMessages', () => {
  it('escapes what Slack would read as mentions, links or entities', () => {
    expect(escapeSlackText('<!channel> & <https://evil|click> <@U123>')).toBe(
      '&lt;!channel&gt; &amp; &lt;https://evil|click&gt; &lt;@U123&gt;',
    );
  });

  it('cuts long text and links the rest to the dashboard', () => {
    const out = messages.truncate('a'.repeat(5000), 100, 'lx2k9a3f01ab');
    expect(out.startsWith('a'.repeat(100))).toBe(true);
    expect(out).toContain('<https://pw.example.com/#/op/lx2k9a3f01ab|full text in the dashboard>');
    expect(messages.truncate('short', 100, 'x')).toBe('short');
    // An entity is never cut in half.
    expect(messages.truncate(`${'a'.repeat(98)}<b`, 100, 'x').split('\n')[0]).toBe('a'.repeat(98));
  });

  it('shows status, step, elapsed time, last output age, tokens and cost in the channel message', () => {
    const now = new Date('2026-01-01T00:02:05.000Z');
    const msg = messages.status(
      op(),
      { step: 'tool edit_file', lastEventAt: '2026-01-01T00:02:00.000Z', budgetUsd: 2 },
      now,
    );
    const text = JSON.stringify(msg.blocks);
    for (const part of [
      '*running*',
      'step: tool edit_file',
      'elapsed 2m 5s',
      'last output 5s ago',
      'tokens 12.3k in / 678 out',
      'cost $0.12 of $2.00',
      'react with :x: to stop',
      '#/op/lx2k9a3f01ab',
    ]) {
      expect(text).toContain(part);
    }
  });

  it('freezes elapsed time once the operation is over', () => {
    const msg = messages.status(
      op({ status: 'merged' }),
      { step: 'x', lastEventAt: undefined, budgetUsd: undefined },
      new Date('2030-01-01'),
    );
    expect(JSON.stringify(msg.blocks)).toContain('elapsed 1m 0s');
    expect(JSON.stringify(msg.blocks)).not.toContain('step:');
  });

  it('binds the buttons to the operation and the head sha shown', () => {
    const note = messages.approval(op(), { number: 7, url: 'http://forge/pulls/7', headSha: 'a'.repeat(40) });
    const actions = note.blocks?.find((b) => b.type === 'actions');
    expect(JSON.stringify(actions)).toContain(`"value":"lx2k9a3f01ab/${'a'.repeat(40)}"`);
    expect(note.approval).toBe(true);
  });

  // Ids whose time part spells a credential word, built from parts (this file is scanned too).
  it.each(['key', 'api', 'pwd', 'auth'].map((word) => `mwza${word}da70af8c3`.slice(0, 16)))(
    'an operation id that spells a credential word (%s) does not make the PR message read as a secret',
    (id) => {
      const scanner = new SecretScanner();
      for (let i = 0; i < 50; i++) {
        const headSha = randomBytes(20).toString('hex');
        const note = messages.approval(op({ id }), { number: 7, url: 'http://forge/pulls/7', headSha });
        const findings = scanOutbound(scanner, { channel: 'slack', where: 'approval', content: JSON.stringify(note) });
        expect(findings, headSha).toEqual([]);
      }
    },
  );

  it('puts a failure reason in a code block, cut with a dashboard link', () => {
    const note = messages.note(
      {
        id: '1-0',
        ts: '',
        opId: 'lx2k9a3f01ab',
        type: 'status',
        data: { to: 'failed', reason: `check "test" exited with 1:\n${'x'.repeat(4000)}` },
      },
      op(),
    );
    const text = JSON.stringify(note?.blocks);
    expect(text).toContain('```check');
    expect(text).toContain('full text in the dashboard');
    expect(text.length).toBeLessThan(2500);
  });

  it('says where an operation came from, and what red CI did to it, with links only to web URLs', () => {
    const fromIssue = op({
      origin: {
        kind: 'issue',
        repo: 'acme/api',
        number: 7,
        url: 'https://github.example/acme/api/issues/7',
        title: 'x',
        trigger: 'label',
      },
    });
    expect(
      JSON.stringify(
        messages.status(fromIssue, { step: undefined, lastEventAt: undefined, budgetUsd: undefined }).blocks,
      ),
    ).toContain('from <https://github.example/acme/api/issues/7|issue #7>');
    const event = (data: Record<string, unknown>) => ({
      id: '1-0',
      ts: '',
      opId: 'x',
      type: 'ci_failure' as const,
      data,
    });
    const head = { headSha: 'abcdef1234567', checks: ['test'], preExisting: ['lint'] };
    const queued = messages.note(
      event({ ...head, state: 'revision_queued', attempt: 1, of: 2, runUrl: 'https://ci.example/run/9' }),
      fromIssue,
    );
    expect(queued?.text).toBe(
      ':rotating_light: CI is red on abcdef1 (<https://ci.example/run/9|CI run>): test. Revising, attempt 1 of 2.',
    );
    const human = messages.note(
      event({ ...head, state: 'needs_human', attempts: 2, runUrl: 'javascript:alert(1)' }),
      fromIssue,
    );
    expect(human).toMatchObject({ milestone: true });
    expect(human?.text).toBe(
      ':sos: CI is still red on abcdef1 (CI run) after 2 automatic revision(s): test. This needs a person.',
    );
    expect(messages.note(event({ ...head, state: 'pre_existing' }), fromIssue)?.text).toContain(
      'lint fail on the base too',
    );
  });

  it('says in the thread when an MCP server did not start, and nothing when one is ready', () => {
    const event = (data: Record<string, unknown>) => ({ id: '1-0', ts: '', opId: 'x', type: 'mcp' as const, data });
    expect(
      messages.note(
        event({ server: 'docs', state: 'failed', required: false, reason: 'it exited with 2: <@U1>' }),
        op(),
      )?.text,
    ).toBe(':electric_plug: MCP server docs did not start: it exited with 2: &lt;@U1&gt;');
    expect(messages.note(event({ server: 'docs', state: 'ready', tools: ['lookup'] }), op())).toBeUndefined();
  });

  it("shows a failed operation's report (Summary, Issues, Partial changes, Recommendation) in Slack's markdown", () => {
    const failureReport = [
      '## fix failed',
      '',
      '### Summary',
      'Attempted: fix it. It stopped: checks failed.',
      '',
      '### Issues',
      '- check `test` exited with 1 <@U999>',
      '',
      '### Partial changes',
      '- `src/app.js`',
      '',
      '### Recommendation',
      'Retry with more specific instructions.',
    ].join('\n');
    const note = messages.note(
      { id: '1-0', ts: '', opId: 'lx2k9a3f01ab', type: 'status', data: { to: 'failed', reason: 'checks failed' } },
      op({ status: 'failed', error: 'checks failed', failureReport }),
    );
    const shown = (note!.blocks![0] as { text: { text: string } }).text.text;
    expect(shown).toBe(
      [
        ':boom: *fix failed*',
        '',
        '*Summary*',
        'Attempted: fix it. It stopped: checks failed.',
        '',
        '*Issues*',
        '• check `test` exited with 1 &lt;@U999&gt;',
        '',
        '*Partial changes*',
        '• `src/app.js`',
        '',
        '*Recommendation*',
        'Retry with more specific instructions.',
      ].join('\n'),
    );
    expect(note?.milestone).toBe(true);
  });

  it('formats durations', () => {
    expect([formatDuration(0), formatDuration(59_400), formatDuration(61_000), formatDuration(3_723_000)]).toEqual([
      '0s',
      '59s',
      '1m 1s',
      '1h 2m',
    ]);
  });
});

describe('approval and cancel permissions', () => {
  it('only listed users approve; the requester or an approver cancels', () => {
    expect(mayApprove('UAPPROVE1', ['UAPPROVE1'])).toBe(true);
    expect(mayApprove('UDEV00001', ['UAPPROVE1'])).toBe(false);
    expect(mayApprove('UDEV00001', [])).toBe(false);
    expect(mayCancel('UDEV00001', op(), [])).toBe(true);
    expect(mayCancel('UAPPROVE1', op(), ['UAPPROVE1'])).toBe(true);
    expect(mayCancel('UOTHER001', op(), ['UAPPROVE1'])).toBe(false);
    // A REST requester named like a Slack user is not that Slack user.
    expect(mayCancel('UDEV00001', op({ requester: { source: 'api', user: 'UDEV00001' } }), [])).toBe(false);
  });

  it('SLACK_APPROVERS and IDENTITIES: neither widens the other', () => {
    // No IDENTITIES: the list decides; empty, nobody approves from Slack.
    expect(slackApprovers([], false)).toEqual([]);
    expect(slackApprovers(['UAPPROVE1'], false)).toEqual(['UAPPROVE1']);
    // IDENTITIES without a list: the roles decide alone (the action checks them next).
    expect(slackApprovers([], true)).toBe('roles');
    expect(mayApprove('UDEV00001', slackApprovers([], true))).toBe(true);
    expect(mayCancel('UOTHER001', op(), slackApprovers([], true))).toBe(true);
    // Both: on the list, and then the role.
    expect(mayApprove('UDEV00001', slackApprovers(['UAPPROVE1'], true))).toBe(false);
    expect(mayApprove('UAPPROVE1', slackApprovers(['UAPPROVE1'], true))).toBe(true);
  });
});
