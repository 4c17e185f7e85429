import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startRedisServer } from '@pullwright/queue';
import { Redis } from 'ioredis';

export interface EmbeddedRedis {
  url: string;
  /** Stops the server if this process started it; a server another process runs is left alone. */
  stop(): Promise<void>;
}

/** Where `npm start` records its private redis-server: `{ url, pid }`. */
const recordFile = (dataDir: string) => path.join(dataDir, 'redis', 'server.json');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function answers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** The redis-server a running `npm start` on this DATA_DIR recorded, if it still answers. */
async function recorded(dataDir: string): Promise<string | undefined> {
  const file = recordFile(dataDir);
  if (!existsSync(file)) return undefined;
  try {
    const { url, pid } = JSON.parse(readFileSync(file, 'utf8')) as { url: string; pid: number };
    return alive(pid) && (await answers(url)) ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Redis of `npm start` on `dataDir`: the private redis-server a running one recorded
 * (so `pullwright export` and a second `npm start` share it), or a new one on the same data
 * (AOF under `<DATA_DIR>/redis`), recorded until it stops.
 */
export async function embeddedRedis(dataDir: string): Promise<EmbeddedRedis> {
  const running = await recorded(dataDir);
  if (running) return { url: running, stop: async () => undefined };
  const server = await startRedisServer({ dataDir: path.join(dataDir, 'redis') });
  const file = recordFile(dataDir);
  writeFileSync(file, JSON.stringify({ url: server.url, pid: server.pid }), { mode: 0o600 });
  return {
    url: server.url,
    stop: async () => {
      rmSync(file, { force: true });
      await server.stop();
    },
  };
}
