import { setTimeout as sleep } from 'node:timers/promises';
import { defineLuaCommand } from '@pullwright/core';
import { redisTest } from '@pullwright/testing';
import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import { FileLocks } from './file-locks.ts';
import {
  checkLockHistory,
  type GrantRecord,
  type LockHistory,
  type SectionRecord,
  type VanishedRecord,
} from './lock-history.ts';
import { parseLockValue } from './lock-value.ts';

const REPO = 'prop/repo';
const FILES = ['a.ts', 'b.ts', 'c.ts', 'd.ts'];
const CLIENTS = 6;
const RUN_MS = 6000;
/**
 * Subtracted from every lease a holder believes in: Redis stamps expiries in whole ms of its
 * own (wall) clock, the holders read a monotonic clock; 3 ms covers the truncation and the
 * difference in rate over a few seconds.
 */
const CLOCK_MARGIN_MS = 3;
const FENCED_WRITE = new URL('./fenced-write-2.lua', import.meta.url);

/** mulberry32: the seed is printed on failure, so the same choices can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

interface Stats {
  grants: number;
  refused: number;
  waits: number;
  renewals: number;
  lostOnRenew: number;
  pauses: number;
  refusedWrites: number;
  zombieReleases: number;
  zombieReleasesWhileTakenOver: number;
}

redisTest(
  'keeps sections exclusive, tokens growing and stale writers fenced off under expiring leases and paused holders',
  async ({ connect, prefix }) => {
    const seed = Number(process.env.LOCKS_PROPERTY_SEED ?? Date.now() % 2 ** 31);
    const grants: GrantRecord[] = [];
    const sections: SectionRecord[] = [];
    const stats: Stats = {
      grants: 0,
      refused: 0,
      waits: 0,
      renewals: 0,
      lostOnRenew: 0,
      pauses: 0,
      refusedWrites: 0,
      zombieReleases: 0,
      zombieReleasesWhileTakenOver: 0,
    };
    const vanished: VanishedRecord[] = [];
    const resource = (path: string) => [`${prefix}:res:{${path}}:highest`, `${prefix}:res:{${path}}:log`];
    const deadline = performance.now() + RUN_MS;

    async function client(index: number): Promise<void> {
      const rand = random(seed + index);
      const redis = connect();
      defineLuaCommand(redis, 'fencedWrite', FENCED_WRITE);
      const write = (path: string, token: number, opId: string) =>
        (redis as Redis & { fencedWrite(...args: Array<string | number>): Promise<number> }).fencedWrite(
          ...resource(path),
          token,
          opId,
        );
      const locks = new FileLocks(redis, { prefix: prefix, pollMs: 50 });
      try {
        for (let round = 0; performance.now() < deadline; round++) {
          const opId = `c${index}-${round}`;
          const wanted = FILES.filter(() => rand() < 0.4);
          if (wanted.length === 0) wanted.push(FILES[Math.floor(rand() * FILES.length)]!);
          const leaseMs = 30 + Math.floor(rand() * 70);

          const sentAt = performance.now();
          const grant = await locks.acquire(REPO, wanted, { opId }, leaseMs);
          const replyAt = performance.now();
          if (!grant.ok) {
            stats.refused++;
            if (rand() < 0.3) {
              stats.waits++;
              const paths = grant.heldBy.map((h) => h.path);
              await locks.waitFor(REPO, paths, { timeoutMs: 60 }).catch(() => undefined);
            } else {
              await sleep(rand() * 5);
            }
            continue;
          }
          stats.grants++;
          grants.push({ opId, token: grant.token, paths: grant.paths, sentAt, replyAt });
          const validUntil = new Map(grant.paths.map((p) => [p, sentAt + leaseMs - CLOCK_MARGIN_MS]));
          const refused = new Map(grant.paths.map((p) => [p, 0]));
          const fencedWrites = async () => {
            for (const path of grant.paths) {
              if ((await write(path, grant.token, opId)) === 0) {
                stats.refusedWrites++;
                refused.set(path, refused.get(path)! + 1);
              }
            }
          };

          const start = performance.now();
          const steps = 1 + Math.floor(rand() * 4);
          for (let step = 0; step < steps; step++) {
            await fencedWrites();
            const roll = rand();
            if (roll < 0.15) {
              // A paused holder (GC, a stopped container): no renewal, the lease runs out.
              stats.pauses++;
              await sleep(leaseMs * (1.2 + rand()));
            } else if (roll < 0.55) {
              stats.renewals++;
              const renewSentAt = performance.now();
              const renewed = await locks.renew(REPO, opId, leaseMs);
              const renewReplyAt = performance.now();
              for (const path of renewed.renewed) validUntil.set(path, renewSentAt + leaseMs - CLOCK_MARGIN_MS);
              for (const path of renewed.lost) {
                // Lost is only legitimate once the lease may have run out. Redis ran the renewal
                // somewhere between send and reply (under load, long after the send): only a reply
                // before the lease could end proves it ran while the lock was ours.
                if (renewReplyAt < validUntil.get(path)!) vanished.push({ path, opId, at: renewReplyAt });
                validUntil.set(path, Number.NEGATIVE_INFINITY);
              }
              stats.lostOnRenew += renewed.lost.length;
            } else {
              await sleep(rand() * (leaseMs / 3));
            }
          }
          await fencedWrites();
          // The end of the section: claimed only for paths whose lease is valid right now.
          const end = performance.now();
          for (const path of grant.paths) {
            if (end < validUntil.get(path)!) {
              sections.push({ path, opId, token: grant.token, start, end, refusedWrites: refused.get(path)! });
            }
          }

          // Released even when the lease ran out: this is the zombie release that must spare
          // whoever holds the file now.
          const releaseSentAt = performance.now();
          const zombie = grant.paths.some((p) => releaseSentAt >= validUntil.get(p)!);
          if (zombie) {
            stats.zombieReleases++;
            const values = await Promise.all(grant.paths.map((p) => redis.get(`${prefix}:{${REPO}}:file:${p}`)));
            if (values.some((v) => v !== null && parseLockValue(v)?.opId !== opId))
              stats.zombieReleasesWhileTakenOver++;
          }
          const released = await locks.release(REPO, opId);
          const releaseReplyAt = performance.now();
          for (const path of grant.paths) {
            // As for renewals: the release proves a vanished lock only if it surely ran in time.
            if (!released.includes(path) && releaseReplyAt < validUntil.get(path)!) {
              vanished.push({ path, opId, at: releaseReplyAt });
            }
          }
        }
      } finally {
        await locks.close();
      }
    }

    await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));

    const reader = connect();
    const accepted = new Map<string, string[]>();
    for (const path of FILES) accepted.set(path, await reader.lrange(resource(path)[1]!, 0, -1));
    const history: LockHistory = { grants, sections, accepted, vanished };
    const violations = checkLockHistory(history);

    const context = `seed ${seed}, stats ${JSON.stringify(stats)}`;
    expect(violations, context).toEqual([]);
    // The run must actually have exercised what it claims to check.
    expect(sections.length, context).toBeGreaterThan(100);
    expect(stats.refused, context).toBeGreaterThan(0);
    expect(stats.pauses, context).toBeGreaterThan(0);
    expect(stats.lostOnRenew, context).toBeGreaterThan(0);
    expect(stats.refusedWrites, context).toBeGreaterThan(0);
    expect(stats.zombieReleasesWhileTakenOver, context).toBeGreaterThan(0);
    expect([...accepted.values()].flat().length, context).toBeGreaterThan(100);
    console.info(`lock property: ${sections.length} sections, ${context}`);
  },
  20_000,
);
