import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '@pullwright/testing/eventually';

export interface CapturedCall {
  /** Web API method (`chat.postMessage`…) or `response_url`. */
  method: string;
  /** The arguments as Slack would read them; `blocks` decoded from their JSON string. */
  args: Record<string, unknown>;
  /** The bytes as sent: secrets are searched in these. */
  raw: string;
  authorization: string | undefined;
  /** For `response_url` calls: the URL's last path segment. */
  hook?: string;
}

export interface FakeSlack {
  url: string;
  /** SLACK_API_URL for the WebClient. */
  apiUrl: string;
  calls: CapturedCall[];
  /** A response_url that records what is posted to it. */
  responseUrl(name: string): string;
  /** Channels the bot is not a member of: posting there fails with `not_in_channel`, as in Slack. */
  notInChannel: Set<string>;
  callsTo(method: string): CapturedCall[];
  waitFor(predicate: (calls: CapturedCall[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

function decode(contentType: string | undefined, raw: string): Record<string, unknown> {
  const args: Record<string, unknown> = contentType?.includes('application/json')
    ? (JSON.parse(raw || '{}') as Record<string, unknown>)
    : Object.fromEntries(new URLSearchParams(raw));
  for (const key of ['blocks', 'attachments', 'view']) {
    if (typeof args[key] === 'string') args[key] = JSON.parse(args[key] as string);
  }
  return args;
}

/**
 * A local server that answers like Slack's Web API (`{ok:true,…}` JSON, `ts` values that
 * increase, `invalid_auth` without the bot token) plus response_url endpoints, and
 * captures every call.
 */
export async function startFakeSlack(
  options: {
    botToken?: string;
    /** Answers `apps.connections.open` for this app-level token with the Socket Mode server's URL. */
    socketMode?: { appToken: string; url: string };
  } = {},
): Promise<FakeSlack> {
  const calls: CapturedCall[] = [];
  const notInChannel = new Set<string>();
  let seq = 0;
  const nextTs = () => `1700000000.${String(++seq).padStart(6, '0')}`;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://x');
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.pathname.startsWith('/hooks/')) {
        calls.push({
          method: 'response_url',
          args: decode(req.headers['content-type'], raw),
          raw,
          authorization: req.headers.authorization,
          hook: url.pathname.slice('/hooks/'.length),
        });
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
        return;
      }
      const method = url.pathname.replace(/^\/api\//, '');
      const args = decode(req.headers['content-type'], raw);
      calls.push({ method, args, raw, authorization: req.headers.authorization });
      if (method === 'apps.connections.open' && options.socketMode) {
        // Only the app-level token opens connections; a bot token gets `not_allowed_token_type`.
        if (req.headers.authorization !== `Bearer ${options.socketMode.appToken}`) {
          return send(200, { ok: false, error: 'not_allowed_token_type' });
        }
        return send(200, { ok: true, url: `${options.socketMode.url}?ticket=${++seq}` });
      }
      if (options.botToken && req.headers.authorization !== `Bearer ${options.botToken}`) {
        return send(200, { ok: false, error: 'invalid_auth' });
      }
      const channel = typeof args.channel === 'string' ? args.channel : undefined;
      switch (method) {
        case 'auth.test':
          return send(200, {
            ok: true,
            url: 'https://acme.slack.com/',
            team: 'Acme',
            user: 'pullwright',
            team_id: 'T0001',
            user_id: 'UBOT0001',
            bot_id: 'BBOT0001',
          });
        case 'chat.postMessage': {
          if (!channel) return send(200, { ok: false, error: 'channel_not_found' });
          if (notInChannel.has(channel)) return send(200, { ok: false, error: 'not_in_channel' });
          const ts = nextTs();
          return send(200, { ok: true, channel, ts, message: { type: 'message', text: args.text, ts } });
        }
        case 'chat.update':
          if (!channel || typeof args.ts !== 'string') return send(200, { ok: false, error: 'message_not_found' });
          return send(200, { ok: true, channel, ts: args.ts, text: args.text });
        case 'chat.postEphemeral':
          return send(200, { ok: true, message_ts: nextTs() });
        case 'views.open':
          if (typeof args.trigger_id !== 'string') return send(200, { ok: false, error: 'invalid_trigger_id' });
          return send(200, { ok: true, view: { id: `V${String(++seq).padStart(8, '0')}` } });
        default:
          return send(200, { ok: false, error: 'unknown_method' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    apiUrl: `${url}/api/`,
    calls,
    notInChannel,
    responseUrl: (name) => `${url}/hooks/${name}`,
    callsTo: (method) => calls.filter((c) => c.method === method),
    async waitFor(predicate, timeoutMs = 30_000, what = 'slack calls') {
      const seen = () => calls.map((c) => `${c.method} ${String(c.args.text ?? '').slice(0, 80)}`).join('\n  ');
      await eventually(
        () => `${what}; calls so far:\n  ${seen()}`,
        () => predicate(calls),
        {
          timeoutMs,
          intervalMs: 25,
        },
      );
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
