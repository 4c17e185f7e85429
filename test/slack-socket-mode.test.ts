import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_TOKEN, APPROVER, type SlackSystem, startSlackSystem } from './support/fake-slack-system.ts';
import { createSampleRepo } from './support/sample-repo.ts';

describe('Slack over Socket Mode (no public URL): the same commands and buttons as HTTP', () => {
  let s: SlackSystem;
  beforeAll(async () => {
    s = await startSlackSystem({ transport: 'socket' });
    await createSampleRepo(s.sys.runtime.localForge!);
  });
  afterAll(async () => s?.stop());

  it('connects with the app-level token, and serves no /slack HTTP routes without a signing secret', async () => {
    expect(s.socket!.connections).toBe(1);
    const open = s.fake.callsTo('apps.connections.open');
    expect(open.map((c) => c.authorization)).toEqual([`Bearer ${APP_TOKEN}`]);
    const http = await fetch(`${s.sys.api.url}/slack/commands`, { method: 'POST', body: 'command=/debug' });
    expect(http.status).toBe(404);
  });

  it('a slash command and an Approve click over the socket run the operation to merged', async () => {
    const answer = await s.command({ command: '/debug', text: 'acme/slugify slugify keeps spaces' });
    // The envelope's ack carries what the HTTP route would answer.
    expect(answer.body.response_type).toBe('ephemeral');
    const id = /`([a-z0-9]{12,})`/.exec(JSON.stringify(answer.body))![1]!;
    const ready = await s.waitForStatus(id, ['awaiting_approval', 'failed']);
    expect(ready.status).toBe('awaiting_approval');
    expect(ready.requester).toMatchObject({ source: 'slack', user: 'UDEV00001' });
    const headSha = ready.pullRequest!.headSha;

    await s.click({ user: 'UOTHER001', actionId: 'pw_approve', value: `${id}:${headSha}`, hook: 'outsider' });
    await s.fake.waitFor((calls) => calls.some((c) => c.hook === 'outsider'), 10_000, 'refusal');
    expect(String(s.fake.calls.find((c) => c.hook === 'outsider')?.args.text)).toMatch(/Only approvers can approve/);
    expect((await s.sys.runtime.store.get(id)).status).toBe('awaiting_approval');

    await s.click({ user: APPROVER, actionId: 'pw_approve', value: `${id}:${headSha}`, hook: 'approver' });
    const merged = await s.waitForStatus(id, ['merged', 'failed']);
    expect(merged.status).toBe('merged');
    expect(merged.approval).toMatchObject({ by: APPROVER, source: 'slack', headSha });
  });

  it('the app token never reaches a Slack message or an answer', () => {
    for (const payload of [
      ...s.fake.calls.filter((c) => c.method !== 'apps.connections.open').map((c) => c.raw),
      ...s.answers,
    ])
      expect(payload).not.toContain(APP_TOKEN);
  });
});
