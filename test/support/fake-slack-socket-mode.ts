import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export interface FakeSocketMode {
  /** The `ws://` URL `apps.connections.open` hands out. */
  url: string;
  /** Connections Slack greeted with `hello`. */
  connections: number;
  /** Sends one envelope to the connected app and resolves with its ack's payload. */
  deliver(type: 'slash_commands' | 'interactive' | 'events_api', payload: unknown): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * Slack's side of Socket Mode on a loopback WebSocket: `hello` on connect, then envelopes
 * `{envelope_id, type, payload, accepts_response_payload}` that the app must acknowledge by
 * sending `{envelope_id, payload?}` back; pings the client as Slack does (the client
 * reconnects when the server stays silent).
 */
export async function startFakeSocketMode(): Promise<FakeSocketMode> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const acks = new Map<string, (payload: Record<string, unknown>) => void>();
  let socket: WebSocket | undefined;
  let greeted: () => void = () => undefined;
  let hello = new Promise<void>((resolve) => {
    greeted = resolve;
  });
  const fake: FakeSocketMode = {
    url: `ws://127.0.0.1:${port}/link/`,
    connections: 0,
    async deliver(type, payload) {
      await hello;
      const envelopeId = randomUUID();
      const acked = new Promise<Record<string, unknown>>((resolve) => acks.set(envelopeId, resolve));
      socket?.send(
        JSON.stringify({
          envelope_id: envelopeId,
          type,
          payload,
          accepts_response_payload: type === 'slash_commands',
          retry_attempt: 0,
          retry_reason: '',
        }),
      );
      return acked;
    },
    close: async () => {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', (ws) => {
    socket = ws;
    const ping = setInterval(() => ws.ping(), 5000);
    ws.on('close', () => {
      clearInterval(ping);
      hello = new Promise<void>((resolve) => {
        greeted = resolve;
      });
    });
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { envelope_id?: string; payload?: Record<string, unknown> };
      if (message.envelope_id) acks.get(message.envelope_id)?.(message.payload ?? {});
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        debug_info: { host: 'applink-fake', approximate_connection_time: 18060 },
        connection_info: { app_id: 'A0PULLWRT1' },
      }),
    );
    fake.connections++;
    greeted();
  });
  return fake;
}
