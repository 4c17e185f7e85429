import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import { PullwrightError } from '@pullwright/core';
import { Redis } from 'ioredis';

interface RedisServerOptions {
  /** Where AOF data lives; omit for a throwaway in-memory server (tests). */
  dataDir?: string;
  binary?: string;
  /** Listen on this port (a restart on the same address, as in the outage tests); default: a free one. */
  port?: number;
  /** requirepass: the URL then carries it (tests of a password-protected Redis, as compose runs one). */
  password?: string;
  /** More redis-server arguments (the Cluster suite's `--cluster-enabled yes …`). */
  args?: string[];
  /** A redis.conf to start from (the compose file's); the arguments above override it. */
  configFile?: string;
}

export interface RedisServerHandle {
  url: string;
  port: number;
  /** The redis-server process: `npm start` records it so other commands can find a live server. */
  pid: number;
  stop(): Promise<void>;
}

const REDIS_INSTALL_HINT = 'apt-get install -y redis-server (Debian/Ubuntu) or brew install redis (macOS)';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPing(url: string, child: ChildProcess, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    // Refused connections are expected until the server listens; connect() rejects with them.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      client.disconnect();
    }
  }
  throw new Error('redis-server did not answer PING within 10 s');
}

/**
 * Starts a private redis-server on a free loopback port. Used by `npm start` when no
 * REDIS_URL is set and by the test suite, so nothing depends on a Redis already running.
 * The same settings as production: AOF persistence and `noeviction` (BullMQ loses jobs
 * under any eviction policy).
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServerHandle> {
  const binary = options.binary ?? 'redis-server';
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (probe.error) {
    throw new PullwrightError(
      'unavailable',
      `redis-server was not found on PATH; install it with: ${REDIS_INSTALL_HINT}`,
    );
  }
  for (let attempt = 0; ; attempt++) {
    const port = options.port ?? (await freePort());
    const args = [
      ...(options.configFile ? [options.configFile] : []),
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--maxmemory-policy',
      'noeviction',
      '--save',
      '',
    ];
    if (options.password) args.push('--requirepass', options.password);
    args.push(...(options.args ?? []));
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true });
      args.push('--dir', options.dataDir, '--appendonly', 'yes');
    } else {
      args.push('--appendonly', 'no');
    }
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const auth = options.password ? `:${encodeURIComponent(options.password)}@` : '';
    const url = `redis://${auth}127.0.0.1:${port}`;
    try {
      await waitForPing(url, child, Date.now() + 10_000);
    } catch (err) {
      child.kill('SIGKILL');
      // Another process may have taken the port between our probe and the bind.
      if (attempt < 3 && options.port === undefined) continue;
      throw new PullwrightError('unavailable', `could not start redis-server: ${(err as Error).message}`);
    }
    return {
      url,
      port,
      pid: child.pid ?? 0,
      stop: () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    };
  }
}
