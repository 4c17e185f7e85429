import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ReplayProvider, ReplayTranscript } from '@pullwright/agent';
import { DEPLOY_ACTION, REVISE_ACTION, REVISE_BLOCK, REVISE_INPUT, REVISE_VIEW } from '@pullwright/slack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const PROPOSER = 'U0PAT0001';
const DEPLOYER = 'U0DEE0001';
const IDENTITIES = [
  { id: 'dev', role: 'committer', slack: [REQUESTER] },
  { id: 'ann', role: 'merger', slack: [APPROVER] },
  { id: 'pat', role: 'proposer', slack: [PROPOSER] },
  { id: 'dee', role: 'deployer', slack: [DEPLOYER] },
];

function revision(file: string): ReplayTranscript {
  return ReplayTranscript.parse({
    model: `replay:${file}`,
    turns: [
      { content: [{ type: 'tool_use', name: 'write_file', input: { path: file, content: `${file}\n` } }] },
      { content: [{ type: 'text', text: '{"replies":[{"comment":"C1","outcome":"fixed","note":"Done."}]}' }] },
    ],
  });
}

describe('Slack: request changes, thread replies after the PR, /deploy', () => {
  let s: SlackSystem;
  let scratch: string;
  let hook: Server;
  const deployHits: string[] = [];

  beforeAll(async () => {
    hook = createServer((req, res) => {
      deployHits.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(req.url === '/deploy' ? { id: 'd1', status: 'queued' } : { status: 'success' }));
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const address = hook.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    scratch = mkdtempSync(path.join(os.tmpdir(), 'pw-slack-review-'));
    const policy = path.join(scratch, 'policy.yml');
    writeFileSync(
      policy,
      `allow: { deploy_hosts: [127.0.0.1] }
deploy:
  on_merge: false
  target: { kind: webhook, url: '${base}/deploy' }
  status: { url: '${base}/status/{id}', poll_ms: 100, timeout_ms: 5000 }
`,
    );
    s = await startSlackSystem({
      env: {
        IDENTITIES: JSON.stringify(IDENTITIES),
        POLICY_FILE: policy,
        DEPLOY_WEBHOOK_SECRET: 'deploy-secret-for-slack-tests',
        PUBLIC_URL: 'https://pw.example',
      },
    });
    await createSampleRepo(s.sys.runtime.localForge!);
  });
  afterAll(async () => {
    await s?.stop();
    await new Promise<void>((r) => (hook ? hook.close(() => r()) : r()));
    rmSync(scratch, { recursive: true, force: true });
  });

  const threadTexts = (rootTs: string) =>
    s.fake
      .callsTo('chat.postMessage')
      .filter((c) => c.args.thread_ts === rootTs)
      .map((c) => JSON.stringify(c.args.blocks ?? c.args.text));

  it('the modal and a thread reply each revise; a reply from someone without the revise role is refused; /deploy is for deployers', async () => {
    const answer = await s.command({ command: '/fix', text: 'acme/slugify slugify keeps spaces', user_id: REQUESTER });
    const id = /`([a-z0-9]{12,})`/.exec(JSON.stringify(answer.body))![1]!;
    const opened = await s.waitForStatus(id, ['awaiting_approval', 'failed']);
    expect(opened.status, opened.error).toBe('awaiting_approval');
    const rootTs = await s.threadOf(id);
    await s.fake.waitFor((calls) => calls.some((c) => JSON.stringify(c.args.blocks ?? '').includes(REVISE_ACTION)));

    // Request changes: the button opens the modal for this operation.
    expect(await s.click({ user: REQUESTER, actionId: REVISE_ACTION, value: id, hook: 'rc1' })).toBe(200);
    await s.fake.waitFor((calls) => calls.some((c) => c.method === 'views.open'));
    const modal = s.fake.callsTo('views.open')[0]!.args.view as { callback_id: string; private_metadata: string };
    expect(modal).toMatchObject({ callback_id: REVISE_VIEW, private_metadata: id });

    // Someone the policy does not let revise gets no modal, and is told which role it takes.
    expect(await s.click({ user: PROPOSER, actionId: REVISE_ACTION, value: id, hook: 'rc-pat' })).toBe(200);
    await s.fake.waitFor((calls) => calls.some((c) => c.hook === 'rc-pat'));
    expect(String(s.fake.calls.find((c) => c.hook === 'rc-pat')!.args.text)).toContain('needs the committer role');
    expect(s.fake.callsTo('views.open')).toHaveLength(1);

    // Submitted: a revision, said in the thread.
    s.sys.runtime.createProvider = () => new ReplayProvider(revision('docs/modal.md'));
    const view = {
      type: 'view_submission',
      user: { id: REQUESTER },
      view: {
        id: 'V0MODAL01',
        callback_id: REVISE_VIEW,
        private_metadata: id,
        state: { values: { [REVISE_BLOCK]: { [REVISE_INPUT]: { value: 'Add docs/modal.md' } } } },
      },
    };
    const submitted = await postSigned(
      `${s.sys.api.url}/slack/interactions`,
      SIGNING_SECRET,
      new URLSearchParams({ payload: JSON.stringify(view) }).toString(),
    );
    expect(await submitted.json()).toEqual({});
    const first = await s.waitForEvent(
      id,
      (e) => e.type === 'status' && e.data.revision === 'slack-view-V0MODAL01' && e.data.to === 'awaiting_approval',
    );
    const h1 = String(first.data.headSha);

    // A thread reply now that the PR is open: a second revision (not a message to a stopped model).
    s.sys.runtime.createProvider = () => new ReplayProvider(revision('docs/reply.md'));
    expect(
      await s.event({
        type: 'message',
        channel: CHANNEL,
        user: REQUESTER,
        text: 'Also add docs/reply.md',
        ts: '1700000999.000100',
        thread_ts: rootTs,
      }),
    ).toBe(200);
    const second = await s.waitForEvent(
      id,
      (e) => e.type === 'status' && e.data.revision === 'slack-1700000999000100' && e.data.to === 'awaiting_approval',
    );
    const h2 = String(second.data.headSha);
    expect(h2).not.toBe(h1);
    const op = await s.sys.runtime.store.get(id);
    expect(op.ledger?.map((r) => [r.entries[0]!.source, r.entries[0]!.text, r.entries[0]!.outcome])).toEqual([
      ['slack', 'Add docs/modal.md', 'fixed'],
      ['slack', 'Also add docs/reply.md', 'fixed'],
    ]);
    // The thread says what was requested, and links what changed since the head the reviewer saw.
    await s.fake.waitFor(() => threadTexts(rootTs).some((t) => t.includes(`from=${h1}`)), 10_000, 'interdiff link');
    expect(threadTexts(rootTs).some((t) => t.includes('requested changes'))).toBe(true);

    // A proposer may not revise: told so, nothing queued.
    const ephemerals = s.fake.callsTo('chat.postEphemeral').length;
    await s.event({
      type: 'message',
      channel: CHANNEL,
      user: PROPOSER,
      text: 'rename it',
      ts: '1700001000.000200',
      thread_ts: rootTs,
    });
    await s.fake.waitFor((calls) => calls.filter((c) => c.method === 'chat.postEphemeral').length > ephemerals);
    expect(String(s.fake.callsTo('chat.postEphemeral').at(-1)!.args.text)).toContain('needs the committer role');
    expect(await s.sys.runtime.queue.queue.getJob(`${id}-revise-slack-1700001000000200`)).toBeUndefined();

    // Approved and merged, then deployed from Slack: refused for a proposer, run for a deployer.
    await s.click({ user: APPROVER, actionId: 'pw_approve', value: `${id}:${h2}`, hook: 'ap1' });
    await s.waitForStatus(id, ['merged']);
    await s.fake.waitFor(() => threadTexts(rootTs).some((t) => t.includes(DEPLOY_ACTION)), 10_000, 'Deploy button');
    const refused = await s.command({ command: '/deploy', text: id, user_id: PROPOSER });
    expect(String(refused.body.text)).toBe(
      'pat may not deploy: that needs the deployer role (pat has the proposer role)',
    );
    const started = await s.command({ command: '/deploy', text: id, user_id: DEPLOYER });
    expect(String(started.body.text)).toBe(`Deploying ${id} to webhook; progress follows in its thread.`);
    await s.fake.waitFor(
      () => threadTexts(rootTs).some((t) => t.includes(':white_check_mark: Deployed.')),
      15_000,
      'deploy result',
    );
    expect(threadTexts(rootTs).some((t) => t.includes('Deploying to `webhook` by dee'))).toBe(true);
    expect((await s.sys.runtime.store.get(id)).deploy).toMatchObject({ status: 'succeeded', by: 'dee' });
    expect(deployHits).toEqual(['/deploy', '/status/d1']);
  });
});
