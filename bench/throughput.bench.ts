import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startWorker } from '@pullwright/code-worker';
import { FINAL_STATUSES, loadConfig, silentLogger } from '@pullwright/core';
import { createRuntime, type Runtime } from '@pullwright/pipeline';
import { startRedisServer } from '@pullwright/queue';
import { spawnWorker } from '../test/chaos/worker-process.ts';
import { benchEnv } from './support/bench-env.ts';

const SAMPLE_DIR = path.resolve(import.meta.dirname, '../apps/cli/demo/sample-repo');

interface Round {
  workers: number;
  opsPerMinute: number;
  failed: number;
}

/** Enqueues `ops` operations (one repository each) and waits until every one has finished. */
async function drain(runtime: Runtime, ops: number): Promise<{ seconds: number; failed: number }> {
  const ids: string[] = [];
  for (let i = 0; i < ops; i++) {
    await runtime.localForge!.createRepository(`bench/r${i}`, {}, { fromDir: SAMPLE_DIR });
  }
  const started = performance.now();
  for (let i = 0; i < ops; i++) {
    const op = await runtime.store.create({
      type: 'debug',
      repo: `bench/r${i}`,
      baseBranch: 'main',
      description: 'slugify drops the dash between words',
      requester: { source: 'api', user: 'bench' },
    });
    await runtime.queue.add('run', { opId: op.id });
    ids.push(op.id);
  }
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const statuses = (await Promise.all(ids.map((id) => runtime.store.get(id)))).map((o) => o.status);
    if (statuses.every((s) => s === 'awaiting_approval' || FINAL_STATUSES.has(s))) {
      return {
        seconds: (performance.now() - started) / 1000,
        failed: statuses.filter((s) => s !== 'awaiting_approval').length,
      };
    }
    if (Date.now() > deadline) throw new Error('operations did not finish within 10 minutes');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Operations per minute on replayed transcripts (the demo's /debug: prepare, model loop,
 * `npm test` in the sandbox, commit, push, PR) with 1, 2 and 4 worker processes of
 * concurrency 1 on one Redis. The baseline is one worker; the ratio is the speed-up.
 * Smoke mode runs in-process workers with two operations each.
 */
export default async function throughputBench(opts: { smoke: boolean }) {
  const counts = opts.smoke ? [1, 2] : [1, 2, 4];
  const ops = opts.smoke ? 2 : 16;
  const server = await startRedisServer();
  const rounds: Round[] = [];
  try {
    for (const workers of counts) {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pw-bench-tp-'));
      const env = benchEnv(server.url, `tp${workers}`, dataDir);
      const runtime = await createRuntime(loadConfig(env), silentLogger());
      const inProcess = opts.smoke
        ? await Promise.all(Array.from({ length: workers }, () => startWorker(runtime)))
        : [];
      const processes = opts.smoke
        ? []
        : Array.from({ length: workers }, () => spawnWorker({ ...env, LOG_LEVEL: 'info' }));
      try {
        await Promise.all(processes.map((p) => p.ready));
        const { seconds, failed } = await drain(runtime, ops);
        rounds.push({ workers, opsPerMinute: (ops / seconds) * 60, failed });
      } finally {
        for (const p of processes) p.child.kill('SIGTERM');
        await Promise.all(processes.map((p) => p.exited));
        await Promise.all(inProcess.map((w) => w.close()));
        await runtime.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await server.stop();
  }
  const one = rounds[0]!.opsPerMinute;
  const r = (n: number) => Number(n.toFixed(2));
  return rounds.map((round) => ({
    name:
      `operations/min, ${round.workers} worker${round.workers === 1 ? '' : 's'}` +
      `${opts.smoke ? ' in-process' : ''}, ${ops} ops on ${os.cpus().length} cores` +
      `${round.failed ? `, ${round.failed} failed` : ''}`,
    value: r(round.opsPerMinute),
    unit: 'ops/min',
    baseline: r(one),
    ratio: r(round.opsPerMinute / one),
  }));
}
