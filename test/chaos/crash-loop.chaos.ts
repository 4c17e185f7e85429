import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { FINAL_STATUSES, type Operation } from '@pullwright/core';
import { DEFAULT_FILE_LEASE_MS, DEFAULT_MERGE_LEASE_MS } from '@pullwright/locks';
import type { RedisClient } from '@pullwright/queue';
import { eventually } from '@pullwright/testing/eventually';
import { Cluster } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisEnv } from '../support/redis-env.ts';
import { createSampleRepo } from '../support/sample-repo.ts';
import { DEMO_TRANSCRIPT, startTestSystem, type TestSystem } from '../support/test-runtime.ts';
import { spawnWorker, type WorkerProcess } from './worker-process.ts';

const run = promisify(execFile);

const REPOS = 5;
const OPS_PER_REPO = 5;
const WORKERS = 3;
/** Short job locks so a killed worker's jobs come back within ~2 s instead of the production ~90 s. */
const JOB_LOCK_MS = 1500;
const KILL_PHASE_MS = 70_000;
const DRAIN_MS = 120_000;

/** SCAN of every primary: on a Cluster each holds only its slots' keys. */
async function keysMatching(redis: RedisClient, pattern: string): Promise<string[]> {
  const found: string[] = [];
  for (const node of redis instanceof Cluster ? redis.nodes('master') : [redis]) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
  }
  return found;
}

/** The phase an operation was in, from its newest step event: where a kill landed. */
async function phaseOf(sys: TestSystem, opId: string): Promise<string> {
  const events = await sys.runtime.events.list(opId);
  const last = [...events].reverse().find((e) => e.type === 'step' || e.type === 'status');
  if (!last) return 'queued';
  return last.type === 'status'
    ? String(last.data.to)
    : `${last.data.step}${last.data.state ? `:${last.data.state}` : ''}`;
}

describe('crash loop', () => {
  let sys: TestSystem;
  const workers: WorkerProcess[] = [];
  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await sys?.stop();
  });

  it('kill -9 of random workers at random moments loses and duplicates nothing', async () => {
    sys = await startTestSystem({ worker: false });
    const prefix = sys.runtime.config.redisPrefix;
    const env = {
      ...redisEnv(),
      VERIFICATION_KEY: sys.runtime.config.verificationKey!,
      REDIS_PREFIX: prefix,
      DATA_DIR: sys.dataDir,
      LLM_PROVIDER: 'replay',
      REPLAY_FILE: DEMO_TRANSCRIPT,
      CHECK_TIMEOUT_MS: '60000',
      WORKER_CONCURRENCY: '2',
      JOB_LOCK_MS: String(JOB_LOCK_MS),
      JOB_STALLED_INTERVAL_MS: '500',
      // Random kills can hit one job several times; it must still end, with a reason if not a PR.
      JOB_MAX_STALLED: '6',
      SHUTDOWN_GRACE_MS: '5000',
    };
    const slots: WorkerProcess[] = [];
    const launch = (slot: number) => {
      const w = spawnWorker(env);
      workers.push(w);
      slots[slot] = w;
      return w;
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, i) => launch(i).ready));

    const forge = sys.runtime.localForge!;
    const repos: string[] = [];
    for (let r = 0; r < REPOS; r++) repos.push(await createSampleRepo(forge, `chaos/r${r}`));
    const ids: string[] = [];
    for (const repo of repos) {
      for (let i = 0; i < OPS_PER_REPO; i++) {
        const res = await sys.request('POST', '/v1/operations', { type: 'debug', repo, description: `fix ${i}` });
        expect(res.status).toBe(202);
        ids.push(((await res.json()) as { id: string }).id);
      }
    }

    const unfinished = async () => {
      const ops = await Promise.all(ids.map((id) => sys.runtime.store.get(id)));
      return ops.filter((o) => !FINAL_STATUSES.has(o.status) && o.status !== 'awaiting_approval');
    };

    // Kill a random worker every 0.3–2.5 s and start a new one in its place, while work remains.
    const kills: Array<{ atMs: number; phases: string[] }> = [];
    const started = Date.now();
    while (Date.now() - started < KILL_PHASE_MS) {
      await new Promise((r) => setTimeout(r, 300 + Math.random() * 2200));
      const open = await unfinished();
      if (open.length === 0) break;
      const slot = Math.floor(Math.random() * WORKERS);
      const victim = slots[slot]!;
      const phases = await Promise.all(open.filter((o) => o.status === 'running').map((o) => phaseOf(sys, o.id)));
      victim.child.kill('SIGKILL');
      await victim.exited;
      kills.push({ atMs: Date.now() - started, phases });
      // Restart without waiting for it to boot: kills may land while others are still starting.
      launch(slot).ready.catch(() => undefined);
    }

    // Past the drain time the summary and the checks below name each operation still open.
    await eventually('every operation has ended', async () => (await unfinished()).length === 0, {
      timeoutMs: DRAIN_MS,
      intervalMs: 250,
    }).catch(() => undefined);
    const ops: Operation[] = await Promise.all(ids.map((id) => sys.runtime.store.get(id)));
    const tally = (values: string[]) =>
      values.reduce<Record<string, number>>((acc, v) => {
        acc[v] = (acc[v] ?? 0) + 1;
        return acc;
      }, {});
    const summary = {
      kills: kills.length,
      // Phases of the operations running at each kill (which worker ran which is not tracked).
      runningAtKills: tally(kills.flatMap((k) => k.phases)),
      statuses: tally(ops.map((o) => o.status)),
      failures: ops.filter((o) => o.status === 'failed').map((o) => o.error),
      seconds: Math.round((Date.now() - started) / 1000),
    };
    process.stdout.write(`crash loop: ${JSON.stringify(summary, null, 2)}\n`);
    expect(kills.length).toBeGreaterThanOrEqual(5);

    // Every operation ended: a PR awaiting approval, or a final status with a reason.
    for (const op of ops) {
      expect(FINAL_STATUSES.has(op.status) || op.status === 'awaiting_approval', `${op.id} is ${op.status}`).toBe(true);
      if (op.status === 'awaiting_approval') expect(op.pullRequest, op.id).toBeDefined();
      else expect(op.error, `${op.id} ended ${op.status} without a reason`).toBeTruthy();
    }

    // At most one pushed branch and at most one PR per operation.
    const prKeys = await keysMatching(sys.runtime.redis, `${prefix}:forge:{*}:pr:*`);
    const prs = (await Promise.all(prKeys.map((k) => sys.runtime.redis.get(k)))).map(
      (raw) => JSON.parse(raw!) as { head: string; number: number; repo: string },
    );
    for (const op of ops) {
      const { stdout } = await run('git', ['for-each-ref', '--format=%(refname)', `refs/heads/agent/${op.id}*`], {
        cwd: forge.repoDir(op.repo),
      });
      const branches = stdout.split('\n').filter(Boolean);
      expect(branches.length, `${op.id} branches: ${branches.join(', ')}`).toBeLessThanOrEqual(1);
      const opPrs = prs.filter((pr) => pr.repo === op.repo && pr.head.startsWith(`agent/${op.id}`));
      expect(opPrs.length, `${op.id} PRs: ${opPrs.map((p) => p.number).join(', ')}`).toBeLessThanOrEqual(1);
      if (op.status === 'awaiting_approval') {
        expect(branches).toEqual([`refs/heads/${op.branch}`]);
        expect(opPrs.map((p) => p.number)).toEqual([op.pullRequest!.number]);
      }
    }

    // No lock outlives its lease: every job lock and file/merge lock left has a TTL within it.
    const jobLocks = await keysMatching(sys.runtime.redis, `{${prefix}}:bull:*:lock`);
    for (const key of jobLocks) {
      const ttl = await sys.runtime.redis.pttl(key);
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(JOB_LOCK_MS);
    }
    const leases = await keysMatching(sys.runtime.redis, `${sys.runtime.locks.prefix}:{*}:*`);
    for (const key of leases) {
      if (!/:(file:.*|merge)$/.test(key)) continue;
      const ttl = await sys.runtime.redis.pttl(key);
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(Math.max(DEFAULT_FILE_LEASE_MS, DEFAULT_MERGE_LEASE_MS));
    }
    // With every worker gone, no job lock is left once a lease has passed.
    for (const w of slots) w.child.kill('SIGKILL');
    await Promise.all(slots.map((w) => w.exited));
    await new Promise((r) => setTimeout(r, JOB_LOCK_MS + 100));
    expect(await keysMatching(sys.runtime.redis, `{${prefix}}:bull:*:lock`)).toEqual([]);
    const counts = await sys.runtime.queue.counts();
    expect([counts.waiting, counts.prioritized, counts.delayed]).toEqual([0, 0, 0]);
    // A job a killed worker held stays listed as active until some worker's stalled check
    // moves it back; with every worker gone none does. It holds no lock (checked above), and
    // its operation already ended (checked above), so a recovery would find nothing to do.
    const active = await sys.runtime.queue.queue.getJobs(['active']);
    for (const job of active) {
      const op = await sys.runtime.store.get((job.data as { opId: string }).opId);
      expect(['awaiting_approval', 'merged', 'failed', 'cancelled', 'rejected'], op.id).toContain(op.status);
    }
  });
});
