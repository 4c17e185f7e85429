import type { OperationEvent, OperationEventType } from '@pullwright/core';
import { emptyUsage, type Operation } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { SlackMessages } from './slack-messages.ts';
import { DEPLOY_ACTION, REVISE_ACTION, REVISE_VIEW, requestChangesModal } from './slack-review-messages.ts';

const messages = new SlackMessages('https://pw.example.com');
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

const op = (overrides: Partial<Operation> = {}): Operation => ({
  id: 'lx2k9a3f01ab',
  type: 'fix',
  priority: 'medium',
  targetFiles: [],
  repo: 'acme/api',
  baseBranch: 'main',
  description: 'fix it',
  context: {},
  requester: { source: 'slack', user: 'UDEV00001', channel: 'C0DEV0001' },
  status: 'awaiting_approval',
  version: 3,
  filesChanged: [],
  checks: [],
  findings: [],
  usage: emptyUsage(),
  checkpoints: [],
  cancelRequested: false,
  pullRequest: { number: 7, url: 'https://gh.example/acme/api/pull/7', headSha: B },
  ledger: [
    {
      requestId: 'slack-1',
      at: '2026-01-01T00:00:00.000Z',
      fromSha: A,
      headSha: B,
      state: 'pushed',
      entries: [
        { source: 'slack', kind: 'slack', ref: 1, user: 'U1', text: 'Handle <tabs> too', outcome: 'fixed' },
        {
          source: 'github',
          kind: 'review',
          ref: 2,
          user: 'maria',
          text: 'Rename it',
          outcome: 'declined',
          note: 'breaks callers',
        },
      ],
    },
  ],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:01:00.000Z',
  ...overrides,
});

const event = (type: OperationEventType, data: Record<string, unknown>): OperationEvent => ({
  id: '1-0',
  ts: '2026-01-01T00:02:00.000Z',
  opId: 'lx2k9a3f01ab',
  type,
  data,
});

describe('Slack review-loop messages', () => {
  it('the PR message carries Request changes beside Approve and Reject', () => {
    const note = messages.approval(op(), op().pullRequest!);
    expect(JSON.stringify(note.blocks)).toContain(
      `"action_id":"${REVISE_ACTION}","text":{"type":"plain_text","text":"Request changes"},"value":"lx2k9a3f01ab"`,
    );
  });

  it('after a revision: the outcomes, the interdiff link from the head the reviewer saw, and the buttons for the new head', () => {
    const note = messages.note(event('status', { to: 'awaiting_approval', revision: 'slack-1', headSha: B }), op())!;
    const text = JSON.stringify(note.blocks);
    expect(note).toMatchObject({ approval: true, milestone: true });
    expect(text).toContain(
      `<https://pw.example.com/#/op/lx2k9a3f01ab?tab=changes&from=${A}|changes since \`aaaaaaa\`>`,
    );
    expect(text).toContain('Handle &lt;tabs&gt; too → done in `bbbbbbb`');
    expect(text).toContain('Rename it → declined: breaks callers');
    expect(text).toContain(`lx2k9a3f01ab/${B}`);
  });

  it('a failed revision says the branch is unchanged, and why', () => {
    const note = messages.note(
      event('status', { to: 'awaiting_approval', revision: 'r', revisionFailed: 'check "test" exited with 1' }),
      op(),
    )!;
    expect(note.text).toContain('The revision could not be completed; the branch is unchanged');
    expect(JSON.stringify(note.blocks)).toContain('check \\"test\\" exited with 1');
  });

  it('the merged message has the Deploy button; deploy steps are milestones in the thread', () => {
    const merged = messages.note(event('status', { to: 'merged', mergeSha: A }), op({ status: 'merged' }))!;
    expect(JSON.stringify(merged.blocks)).toContain(`"action_id":"${DEPLOY_ACTION}"`);
    const started = messages.note(event('deploy', { step: 'started', target: 'webhook', by: 'dee' }), op())!;
    expect(started).toMatchObject({ milestone: true, text: 'Deploying to webhook by dee.' });
    const failed = messages.note(event('deploy', { step: 'rolled_back', reason: 'the deploy <failed>' }), op())!;
    expect(JSON.stringify(failed.blocks)).toContain('Deploy rolled back: the deploy &lt;failed&gt;.');
    expect(messages.note(event('deploy', { step: 'unknown' }), op())).toBeUndefined();
  });

  it('the modal names the operation in its metadata and asks for the change', () => {
    const view = requestChangesModal(op(), 7);
    expect(view).toMatchObject({ type: 'modal', callback_id: REVISE_VIEW, private_metadata: 'lx2k9a3f01ab' });
    expect(JSON.stringify(view.blocks)).toContain('pull request #7 on `acme/api`');
  });
});
