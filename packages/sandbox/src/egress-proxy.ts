import { lookup as dnsLookup } from 'node:dns/promises';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { type NetworkAllowEntry, parseNetworkAllowEntry } from '@pullwright/core';
import { type AddressRefusal, addressRefusal } from './egress-address.ts';
import { EGRESS_SOCKET_NAME } from './egress-bridge-command.ts';

/** Why the proxy refused a connection: the host is not allowed, or where it leads is closed. */
export type EgressRefusal = AddressRefusal | 'not_allowed' | 'service_port' | 'unresolved' | 'bad_request';

/** One refused connection, as the operation records it. */
export interface RefusedConnection {
  host: string;
  port: number;
  reason: EgressRefusal;
  /** The resolved address that was refused, when the name resolved. */
  address?: string;
}

export interface EgressPolicy {
  /** The repository's `network.allow` (or its ecosystems' registries): public addresses only. */
  allow: readonly string[];
  /** The deployment's NETWORK_ALLOW: may resolve to private and loopback addresses too. */
  trusted: readonly string[];
  /** The service's own ports (the API, the worker's health port, Redis): refused on every address. */
  servicePorts: readonly number[];
}

/** What the deployment decides for every install: NETWORK_ALLOW and the service's ports. */
export type DeploymentEgress = Omit<EgressPolicy, 'allow'>;

type Lookup = (host: string) => Promise<{ address: string }[]>;

interface EgressProxyOptions {
  /** Called once per refused connection. */
  onRefused: (refused: RefusedConnection) => void;
  /** Name resolution; default the system resolver (`dns.lookup`, every address). */
  lookup?: Lookup;
}

const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

function matches(entry: NetworkAllowEntry, host: string, port: number): boolean {
  if (entry.port !== undefined && entry.port !== port) return false;
  return entry.host.startsWith('*.') ? host.endsWith(entry.host.slice(1)) : host === entry.host;
}

type Decision = { addresses: string[] } | { refused: RefusedConnection };

/**
 * A resolver that answers only with the addresses the policy checked, so the connection
 * (node's own happy eyeballs over them, `autoSelectFamily`) goes nowhere else.
 */
function checkedLookup(addresses: readonly string[]): net.LookupFunction {
  const all = addresses.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
  return (_host, options, callback) => {
    if (options.all) callback(null, all);
    else callback(null, all[0]!.address, all[0]!.family);
  };
}

/** A TCP connection to `host` that can only reach the checked addresses. */
function connectChecked(host: string, port: number, addresses: readonly string[]): net.Socket {
  return net.connect({ host, port, lookup: checkedLookup(addresses), autoSelectFamily: true });
}

/**
 * The install step's only way out of its network namespace: an HTTP proxy on a unix socket
 * that the sandbox's bridge forwards to (CONNECT for TLS, absolute-URI requests for plain
 * HTTP). It lets a connection through when the host is allowed (`EgressPolicy`), the port is
 * not one of the service's, and every address the name resolves to is open to that entry
 * (`addressRefusal`); it then connects only to the addresses it checked, never resolving again,
 * so a name that resolves to a public address once and to loopback the next time (DNS
 * rebinding) cannot slip through. Everything else is answered 403 and reported.
 */
export class EgressProxy {
  readonly #server: http.Server;
  readonly #allow: NetworkAllowEntry[];
  readonly #trusted: NetworkAllowEntry[];
  readonly #servicePorts: Set<number>;
  readonly #lookup: Lookup;
  readonly #onRefused: (refused: RefusedConnection) => void;
  readonly #open = new Set<Duplex>();

  private constructor(
    policy: EgressPolicy,
    options: EgressProxyOptions,
    readonly socketPath: string,
  ) {
    const entries = (list: readonly string[]) =>
      list.flatMap((text) => {
        const entry = parseNetworkAllowEntry(text);
        return entry ? [entry] : [];
      });
    this.#allow = entries(policy.allow);
    this.#trusted = entries(policy.trusted);
    this.#servicePorts = new Set(policy.servicePorts.filter((p) => p > 0));
    this.#lookup = options.lookup ?? systemLookup;
    this.#onRefused = options.onRefused;
    this.#server = http.createServer((req, res) => void this.#forward(req, res));
    this.#server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.#tunnel(req, socket, head);
    });
    this.#server.on('connection', (socket: net.Socket) => this.#track(socket));
  }

  /**
   * Listens on a fresh unix socket in a private directory: the directory (not the socket)
   * is what a runner mounts into the sandbox. Readable by any uid: a Docker sandbox runs as
   * another user than the worker.
   */
  static async start(policy: EgressPolicy, options: EgressProxyOptions): Promise<EgressProxy> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pw-egress-'));
    const proxy = new EgressProxy(policy, options, path.join(dir, EGRESS_SOCKET_NAME));
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once('error', reject);
      proxy.#server.listen(proxy.socketPath, resolve);
    });
    await chmod(dir, 0o711);
    await chmod(proxy.socketPath, 0o666);
    return proxy;
  }

  /** The directory holding the socket: what a runner mounts into the sandbox. */
  get socketDir(): string {
    return path.dirname(this.socketPath);
  }

  /** Stops listening, ends every connection still open and removes the socket's directory. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const socket of this.#open) socket.destroy();
    await closed;
    await rm(this.socketDir, { recursive: true, force: true });
  }

  #track(socket: Duplex): void {
    this.#open.add(socket);
    socket.once('close', () => this.#open.delete(socket));
  }

  /** Allowed host, port and resolved address — or the refusal, reported. */
  async #decide(host: string, port: number): Promise<Decision> {
    const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
    const refuse = (reason: EgressRefusal, address?: string) =>
      this.#refuse({ host: name, port, reason, ...(address ? { address } : {}) });
    if (!Number.isInteger(port) || port < 1 || port > 65535 || name === '') return refuse('bad_request');
    const trusted = this.#trusted.some((e) => matches(e, name, port));
    if (!trusted && !this.#allow.some((e) => matches(e, name, port))) return refuse('not_allowed');
    if (this.#servicePorts.has(port)) return refuse('service_port');
    let addresses: string[];
    try {
      addresses = net.isIP(name) ? [name] : (await this.#lookup(name)).map((a) => a.address);
    } catch {
      return refuse('unresolved');
    }
    if (addresses.length === 0) return refuse('unresolved');
    // Every address must be open: a name that mixes a public and a private address is refused.
    for (const address of addresses) {
      const reason = addressRefusal(address, trusted);
      if (reason) return refuse(reason, address);
    }
    return { addresses };
  }

  #refuse(refused: RefusedConnection): Decision {
    this.#onRefused(refused);
    return { refused };
  }

  /** CONNECT host:port: a raw tunnel (TLS end to end) to the checked address. */
  async #tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.#track(client);
    client.on('error', () => client.destroy());
    const target = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    const decision = await this.#decide(target?.[1] ?? '', Number(target?.[2]));
    if ('refused' in decision) {
      client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\n${refusalText(decision.refused)}\n`);
      return;
    }
    const upstream = connectChecked(target![1]!, Number(target![2]), decision.addresses);
    this.#track(upstream);
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      if (upstream.connecting) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      else client.destroy();
    });
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  }

  /** `GET http://host/path`: the request forwarded to the checked address, the answer piped back. */
  async #forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let url: URL | undefined;
    try {
      url = new URL(req.url ?? '');
    } catch {
      url = undefined;
    }
    const port = url ? Number(url.port || 80) : 0;
    const decision =
      url?.protocol === 'http:'
        ? await this.#decide(url.hostname, port)
        : this.#refuse({ host: url?.hostname ?? '', port, reason: 'bad_request' });
    if ('refused' in decision) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`${refusalText(decision.refused)}\n`);
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const upstream = http.request(
      {
        createConnection: () => connectChecked(url!.hostname, port, decision.addresses),
        method: req.method,
        path: `${url!.pathname}${url!.search}`,
        headers: { ...headers, host: url!.host },
        setHost: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  }
}

function refusalText(r: RefusedConnection): string {
  return `pullwright egress proxy: ${r.host}:${r.port} refused (${r.reason})`;
}
