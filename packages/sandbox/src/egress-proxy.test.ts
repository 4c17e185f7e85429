import http from 'node:http';
import type net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EgressPolicy, EgressProxy, type RefusedConnection } from './egress-proxy.ts';

/** A registry stand-in on loopback: answers with the Host it was asked for, and counts requests. */
let registry: http.Server;
let registryPort: number;
let requests = 0;
let proxy: EgressProxy | undefined;
const refused: RefusedConnection[] = [];
const lookups: string[] = [];

beforeAll(async () => {
  registry = http.createServer((req, res) => {
    requests++;
    res.end(`registry saw ${req.method} ${req.url} for ${req.headers.host}`);
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  registryPort = (registry.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => registry.close(resolve));
});

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  refused.length = 0;
  lookups.length = 0;
  requests = 0;
});

/** A proxy whose resolver answers from `names` (and records what it was asked). */
async function start(policy: Partial<EgressPolicy>, names: Record<string, string[]> = {}): Promise<EgressProxy> {
  proxy = await EgressProxy.start(
    { allow: [], trusted: [], servicePorts: [], ...policy },
    {
      onRefused: (r) => refused.push(r),
      lookup: async (host) => {
        lookups.push(host);
        const addresses = names[host];
        if (!addresses) throw new Error(`ENOTFOUND ${host}`);
        return addresses.map((address) => ({ address }));
      },
    },
  );
  return proxy;
}

/** CONNECT through the proxy's socket; on 200, a GET sent through the tunnel and its answer. */
function tunnel(target: string): Promise<{ status: number; answer?: string }> {
  return new Promise((resolve, reject) => {
    http
      .request({ socketPath: proxy!.socketPath, method: 'CONNECT', path: target })
      .on('connect', (res, socket) => {
        if (res.statusCode !== 200) {
          socket.destroy();
          return resolve({ status: res.statusCode ?? 0 });
        }
        let answer = '';
        socket.setEncoding('utf8').on('data', (chunk: string) => {
          answer += chunk;
        });
        socket.on('end', () => resolve({ status: 200, answer }));
        socket.write(`GET /pkg HTTP/1.1\r\nhost: ${target}\r\nconnection: close\r\n\r\n`);
      })
      .on('error', reject)
      .end();
  });
}

/** A plain-HTTP proxy request (absolute URI) through the proxy's socket. */
function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ socketPath: proxy!.socketPath, path: url }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('EgressProxy', () => {
  it('tunnels CONNECT to an allowed host, over the addresses it resolved (the first one that answers)', async () => {
    // The registry listens on 127.0.0.1 only: ::1 refuses, and the next checked address is tried.
    await start({ trusted: ['registry.test'] }, { 'registry.test': ['::1', '127.0.0.1'] });
    const { status, answer } = await tunnel(`registry.test:${registryPort}`);
    expect(status).toBe(200);
    expect(answer).toContain(`registry saw GET /pkg for registry.test:${registryPort}`);
    expect(refused).toEqual([]);
  });

  it('forwards plain HTTP with the Host the client asked for', async () => {
    await start({ trusted: [`registry.test:${registryPort}`] }, { 'registry.test': ['127.0.0.1'] });
    const { status, body } = await get(`http://registry.test:${registryPort}/left-pad?x=1`);
    expect(status).toBe(200);
    expect(body).toBe(`registry saw GET /left-pad?x=1 for registry.test:${registryPort}`);
  });

  it('refuses a repository-allowed name that resolves to loopback (DNS rebinding), connecting nowhere', async () => {
    await start({ allow: ['registry.test'] }, { 'registry.test': ['127.0.0.1'] });
    expect(await tunnel(`registry.test:${registryPort}`)).toEqual({ status: 403 });
    expect((await get(`http://registry.test:${registryPort}/`)).status).toBe(403);
    expect(refused).toEqual([
      { host: 'registry.test', port: registryPort, reason: 'loopback', address: '127.0.0.1' },
      { host: 'registry.test', port: registryPort, reason: 'loopback', address: '127.0.0.1' },
    ]);
    expect(requests).toBe(0);
  });

  it('refuses a name when any of its addresses is closed, even beside a public one', async () => {
    await start({ allow: ['mixed.test'] }, { 'mixed.test': ['104.16.0.35', '10.0.0.7'] });
    expect(await tunnel('mixed.test:443')).toEqual({ status: 403 });
    expect(refused).toEqual([{ host: 'mixed.test', port: 443, reason: 'private', address: '10.0.0.7' }]);
  });

  it('refuses metadata and link-local even to a deployment entry', async () => {
    await start({ trusted: ['metadata.test', '169.254.169.254'] }, { 'metadata.test': ['169.254.169.254'] });
    expect(await tunnel('metadata.test:80')).toEqual({ status: 403 });
    expect((await get('http://169.254.169.254/latest/meta-data/')).status).toBe(403);
    expect(refused.map((r) => r.reason)).toEqual(['link_local', 'link_local']);
  });

  it('refuses the service’s own ports on every address, before resolving', async () => {
    await start({ trusted: ['registry.test'], servicePorts: [registryPort] }, { 'registry.test': ['127.0.0.1'] });
    expect(await tunnel(`registry.test:${registryPort}`)).toEqual({ status: 403 });
    expect(refused).toEqual([{ host: 'registry.test', port: registryPort, reason: 'service_port' }]);
    expect(lookups).toEqual([]);
  });

  it.each([
    ['an unlisted name', ['registry.test'], 'other.test:443'],
    ['the bare name of a *. entry', ['*.pkg.test'], 'pkg.test:443'],
    ['a suffix that is not a subdomain', ['*.pkg.test'], 'evilpkg.test:443'],
    ['another port than the entry names', ['registry.test:443'], 'registry.test:80'],
    ['an address literal not listed', ['registry.test'], '104.16.0.35:443'],
  ])('refuses %s without asking DNS', async (_what, allow, target) => {
    await start({ allow });
    expect(await tunnel(target)).toEqual({ status: 403 });
    expect(refused.map((r) => r.reason)).toEqual(['not_allowed']);
    expect(lookups).toEqual([]);
  });

  it('matches a *. entry on any subdomain, case-insensitively', async () => {
    await start({ allow: ['*.pkg.test'] }, { 'a.b.pkg.test': ['127.0.0.1'] });
    await tunnel('A.B.Pkg.Test:443');
    // Allowed by name, then refused by address: the name matched.
    expect(refused).toEqual([{ host: 'a.b.pkg.test', port: 443, reason: 'loopback', address: '127.0.0.1' }]);
  });

  it('refuses a name that does not resolve, and requests that are not proxy requests', async () => {
    await start({ allow: ['gone.test'] });
    expect(await tunnel('gone.test:443')).toEqual({ status: 403 });
    expect((await get('/relative')).status).toBe(403);
    expect((await get('ftp://gone.test/x')).status).toBe(403);
    expect(refused.map((r) => r.reason)).toEqual(['unresolved', 'bad_request', 'bad_request']);
  });
});
