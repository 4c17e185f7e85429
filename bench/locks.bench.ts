import { FileLocks } from '@pullwright/locks';
import { startRedisServer } from '@pullwright/queue';
import { Redis } from 'ioredis';

/** The usual single-key lock: what a grant of ours is measured against. */
const COMPARE_AND_DELETE = `
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0`;

type Pair = (worker: number, round: number) => Promise<void>;

/** Runs `inFlight` loops of pairs for `ms`; returns pairs per second. */
async function rate(pair: Pair, inFlight: number, ms: number): Promise<number> {
  const deadline = performance.now() + ms;
  let pairs = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, worker) => {
      for (let round = 0; performance.now() < deadline; round++) {
        await pair(worker, round);
        pairs++;
      }
    }),
  );
  return pairs / ((performance.now() - started) / 1000);
}

/**
 * Acquire+release pairs per second: FileLocks (one Lua script each way, with fencing
 * counter, owner index and release message) against raw `SET NX PX` plus a compare-and-delete
 * script, on one connection to a private redis-server. Target: at least half the raw rate.
 */
export default async function locksBench(opts: { smoke: boolean }) {
  const server = await startRedisServer();
  const redis = new Redis(server.url);
  const raw = redis as Redis & { compareAndDelete(key: string, owner: string): Promise<number> };
  redis.defineCommand('compareAndDelete', { numberOfKeys: 1, lua: COMPARE_AND_DELETE });
  const locks = new FileLocks(redis, { prefix: 'bench' });
  // Smoke: 4 windows of 300 ms per mode (~3 s in all); shorter ones swing ±20% on a busy machine.
  const ms = opts.smoke ? 600 : 3000;

  const rawPair: Pair = async (worker, round) => {
    const key = `raw:{bench/repo}:file:src/file-${worker}.ts`;
    const owner = `op-${worker}-${round}`;
    if ((await redis.set(key, owner, 'PX', 1_800_000, 'NX')) !== 'OK') throw new Error('raw lock taken');
    if ((await raw.compareAndDelete(key, owner)) !== 1) throw new Error('raw release failed');
  };
  const oursPair: Pair = async (worker, round) => {
    const opId = `op-${worker}-${round}`;
    const grant = await locks.acquire('bench/repo', [`src/file-${worker}.ts`], { opId });
    if (!grant.ok) throw new Error('lock taken');
    if ((await locks.release('bench/repo', opId)).length !== 1) throw new Error('release failed');
  };

  try {
    const results = [];
    for (const inFlight of [1, 32]) {
      // Warm both up (script load, JIT), then alternate so drift hits both sides alike.
      await rate(rawPair, inFlight, 100);
      await rate(oursPair, inFlight, 100);
      const baseline = [] as number[];
      const ours = [] as number[];
      for (let i = 0; i < 2; i++) {
        baseline.push(await rate(rawPair, inFlight, ms / 2));
        ours.push(await rate(oursPair, inFlight, ms / 2));
      }
      const value = (ours[0]! + ours[1]!) / 2;
      const base = (baseline[0]! + baseline[1]!) / 2;
      results.push({
        name: `file lock acquire+release, ${inFlight} in flight`,
        value: Math.round(value),
        unit: 'pairs/s',
        baseline: Math.round(base),
        ratio: Number((value / base).toFixed(2)),
        target: '>= 0.5x',
      });
    }
    return results;
  } finally {
    await locks.close();
    await redis.quit();
    await server.stop();
  }
}
