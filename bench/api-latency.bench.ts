import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startApi } from '@pullwright/api';
import { codeWorkerOptions } from '@pullwright/code-worker';
import { loadConfig, silentLogger } from '@pullwright/core';
import { createRuntime } from '@pullwright/pipeline';
import { CODE_OPERATIONS_QUEUE, duplicateRedis, startRedisServer } from '@pullwright/queue';
import { type Job, Queue, Worker } from 'bullmq';
import { benchEnv } from './support/bench-env.ts';

const TOKEN = 'bench-token-0123456789abcdef';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Handler start times by job key; a request learns its key (the operation id) only from the response. */
class Arrivals {
  private readonly early = new Map<string, number>();
  private readonly waiters = new Map<string, (at: number) => void>();

  arrived(key: string, at: number): void {
    const waiter = this.waiters.get(key);
    if (waiter) {
      this.waiters.delete(key);
      waiter(at);
    } else this.early.set(key, at);
  }

  wait(key: string): Promise<number> {
    const at = this.early.get(key);
    if (at !== undefined) {
      this.early.delete(key);
      return Promise.resolve(at);
    }
    return new Promise((resolve) => this.waiters.set(key, resolve));
  }
}

/** One enqueue in flight at a time; `send` returns the key the handler will report. */
async function measure(samples: number, send: (i: number) => Promise<string>, arrivals: Arrivals): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const sentAt = performance.now();
    const key = await send(i);
    latencies.push((await arrivals.wait(key)) - sentAt);
  }
  return latencies;
}

/**
 * `POST /v1/operations` (bearer auth, validation, repository check, operation record and
 * event in Redis, BullMQ add) until the code worker's handler starts, against a bare
 * `queue.add` to a bare BullMQ worker; one request in flight, on a private redis-server.
 * Our worker runs the code worker's BullMQ settings with a handler that only takes the time,
 * so the pipeline's own work does not queue behind the measurement.
 */
export default async function apiLatencyBench(opts: { smoke: boolean }) {
  const samples = opts.smoke ? 100 : 1000;
  const warmup = opts.smoke ? 50 : 200;
  const server = await startRedisServer();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pw-bench-api-'));
  const config = loadConfig({ ...benchEnv(server.url, 'bench', dataDir), API_TOKEN: TOKEN, PORT: '0' });
  const runtime = await createRuntime(config, silentLogger());
  const api = await startApi(runtime);
  await runtime.localForge!.createRepository('bench/app', { 'README.md': '# bench\n' });

  const arrivals = new Arrivals();
  // BullMQ leaves connections it was given open: these are closed at the end.
  const connections = [0, 1, 2].map(() => duplicateRedis(runtime.redis, { maxRetriesPerRequest: null }));
  const oursWorker = new Worker(
    CODE_OPERATIONS_QUEUE,
    async (job: Job) => arrivals.arrived(String(job.data.opId), performance.now()),
    codeWorkerOptions(config, connections[0]!),
  );
  const bareQueue = new Queue('bare', { connection: connections[1]!, prefix: 'bare' });
  const bareWorker = new Worker('bare', async (job: Job) => arrivals.arrived(String(job.data.key), performance.now()), {
    connection: connections[2]!,
    prefix: 'bare',
  });
  await Promise.all([oursWorker.waitUntilReady(), bareWorker.waitUntilReady()]);

  const responses: number[] = [];
  const post = async (i: number) => {
    const sentAt = performance.now();
    const res = await fetch(`${api.url}/v1/operations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'debug', repo: 'bench/app', description: `bench ${i}` }),
    });
    if (res.status !== 202) throw new Error(`POST /v1/operations answered ${res.status}`);
    const { id } = (await res.json()) as { id: string };
    responses.push(performance.now() - sentAt);
    return id;
  };
  let bareSeq = 0;
  const bare = async () => {
    const key = `b${bareSeq++}`;
    await bareQueue.add('run', { key });
    return key;
  };

  try {
    // Warm both paths (connections, scripts, JIT), then alternate halves so drift hits both.
    await measure(warmup, bare, arrivals);
    await measure(warmup, post, arrivals);
    responses.length = 0;
    const oursLatencies: number[] = [];
    const bareLatencies: number[] = [];
    for (let half = 0; half < 2; half++) {
      bareLatencies.push(...(await measure(samples / 2, bare, arrivals)));
      oursLatencies.push(...(await measure(samples / 2, post, arrivals)));
    }
    oursLatencies.sort((a, b) => a - b);
    bareLatencies.sort((a, b) => a - b);
    const round = (n: number) => Number(n.toFixed(2));
    const oursP50 = percentile(oursLatencies, 50);
    const bareP50 = percentile(bareLatencies, 50);
    return [
      {
        name: 'POST /v1/operations → handler start, p50',
        value: round(oursP50),
        unit: 'ms',
        baseline: round(bareP50),
        ratio: round(oursP50 / bareP50),
        target: `<= baseline + 3 ms (+${round(oursP50 - bareP50)} ms)`,
      },
      {
        name: 'POST /v1/operations → handler start, p99',
        value: round(percentile(oursLatencies, 99)),
        unit: 'ms',
        baseline: round(percentile(bareLatencies, 99)),
        ratio: round(percentile(oursLatencies, 99) / percentile(bareLatencies, 99)),
      },
      {
        // Where the difference goes: the HTTP round trip with the operation record and the add.
        name: 'POST /v1/operations → 202 response, p50',
        value: round(
          percentile(
            responses.sort((a, b) => a - b),
            50,
          ),
        ),
        unit: 'ms',
      },
    ];
  } finally {
    await oursWorker.close(true);
    await bareWorker.close(true);
    await bareQueue.close();
    for (const c of connections) c.disconnect();
    await api.close();
    await runtime.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
