import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_TOKEN, type SlackSystem, startSlackSystem } from './support/fake-slack-system.ts';

describe('Slack over Socket Mode (no public URL): connection and acknowledgements', () => {
  let s: SlackSystem;
  beforeAll(async () => {
    s = await startSlackSystem({ transport: 'socket', worker: false });
  });
  afterAll(async () => s?.stop());

  it('connects with the app-level token, and serves no /slack HTTP routes without a signing secret', async () => {
    expect(s.socket!.connections).toBe(1);
    const open = s.fake.callsTo('apps.connections.open');
    expect(open.map((c) => c.authorization)).toEqual([`Bearer ${APP_TOKEN}`]);
    const http = await fetch(`${s.sys.api.url}/slack/commands`, { method: 'POST', body: 'command=/debug' });
    expect(http.status).toBe(404);
  });

  it('acknowledges every envelope, even one it cannot read, so Slack does not deliver it again', async () => {
    // The full command → button → merged story over the socket runs in test/slack.test.ts.
    expect(await s.socket!.deliver('slash_commands', { command: '/debug' })).toEqual({});
    expect(await s.socket!.deliver('events_api', { type: 'event_callback', event: { type: 'app_mention' } })).toEqual(
      {},
    );
    const help = await s.socket!.deliver('slash_commands', {
      command: '/status',
      text: '',
      user_id: 'UDEV00001',
      channel_id: 'C0DEV0001',
      response_url: s.fake.responseUrl('status'),
      trigger_id: '1.2.3',
      team_id: 'T0001',
    });
    expect(help.response_type).toBe('ephemeral');
  });
});
