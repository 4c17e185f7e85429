import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined when empty or not JSON). */
  body: unknown;
  receivedAt: number;
}

export type Responder = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface ScriptedServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A local HTTP server that answers request N with responder N: a model API scripted
 * turn by turn. Requests past the script get a 500 naming the overrun, so a test that
 * sends one call too many fails loudly instead of hanging. Binds 127.0.0.1 only.
 */
export async function startScriptedServer(script: Responder[]): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        receivedAt: performance.now(),
      };
      requests.push(recorded);
      const responder = script[requests.length - 1];
      if (!responder) {
        res.writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false' });
        res.end(JSON.stringify({ error: { message: `script exhausted at request ${requests.length}` } }));
        return;
      }
      Promise.resolve(responder(recorded, res)).catch((err: unknown) => {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Responder {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

export interface SseEvent {
  event?: string;
  data: unknown;
}

/** Writes server-sent events one by one; `endEarly` drops the connection after N events. */
export function sse(events: SseEvent[], options: { delayMs?: number; endEarly?: number } = {}): Responder {
  return async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const limit = options.endEarly ?? events.length;
    for (const e of events.slice(0, limit)) {
      const head = e.event ? `event: ${e.event}\n` : '';
      res.write(`${head}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`);
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    }
    if (options.endEarly !== undefined) res.destroy();
    else res.end();
  };
}

/** Never answers: the client's deadline or abort must end the call. */
export function hang(): Responder {
  return () => {};
}

/** Sends a 200 and the start of a body, then goes silent: a deadline that stops at headers misses this. */
export function stallAfterHeaders(contentType = 'application/json', firstBytes = '{'): Responder {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    res.write(firstBytes);
  };
}
