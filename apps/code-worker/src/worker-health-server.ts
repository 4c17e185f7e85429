import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenOrExplain } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { RunningWorker } from './start-worker.ts';

interface WorkerHealthServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

const READY_TIMEOUT_MS = 1000;

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

function authorized(req: IncomingMessage, token: string | undefined): boolean {
  if (!token) return true;
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  return Boolean(match && timingSafeEqual(digest(match[1]!.trim()), digest(token)));
}

/**
 * A worker's own `/healthz` (the process answers), `/readyz` (Redis answers and the BullMQ
 * worker is taking jobs; 503 otherwise, so an orchestrator restarts or stops routing) and
 * `/metrics` (Prometheus: the process, jobs running and finished; METRICS_TOKEN applies).
 * Queue-wide numbers stay on the API's /metrics: every worker would report the same.
 */
export async function startWorkerHealthServer(
  runtime: Pick<Runtime, 'config' | 'redis'>,
  worker: RunningWorker,
): Promise<WorkerHealthServer> {
  const { config } = runtime;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'pullwright_worker_' });
  new Gauge({
    name: 'pullwright_worker_jobs_running',
    help: 'Jobs this worker process is running now',
    registers: [registry],
    collect() {
      this.set(worker.runningJobs());
    },
  });
  const finished = new Counter({
    name: 'pullwright_worker_jobs_finished_total',
    help: 'Jobs this worker process finished, by outcome',
    labelNames: ['outcome'],
    registers: [registry],
  });
  worker.worker.on('completed', () => finished.inc({ outcome: 'completed' }));
  worker.worker.on('failed', () => finished.inc({ outcome: 'failed' }));

  const ready = async (): Promise<string | undefined> => {
    if (!worker.worker.isRunning() || worker.worker.closing) return 'the worker is not taking jobs';
    const ping = runtime.redis.ping().then(
      () => true,
      () => false,
    );
    const timeout = new Promise<boolean>((r) => setTimeout(() => r(false), READY_TIMEOUT_MS).unref());
    return (await Promise.race([ping, timeout])) ? undefined : 'redis is unreachable';
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(res, 405, { error: { code: 'method_not_allowed', message: 'GET only' } });
    if (path === '/healthz') return send(res, 200, { ok: true });
    if (path === '/readyz') {
      void ready().then((problem) =>
        problem
          ? send(res, 503, { error: { code: 'unavailable', message: problem } })
          : send(res, 200, { ok: true, redis: 'up', jobs: worker.runningJobs() }),
      );
      return;
    }
    if (path === '/metrics') {
      if (!authorized(req, config.metricsToken))
        return send(res, 401, { error: { code: 'unauthorized', message: 'missing or invalid bearer token' } });
      void registry.metrics().then((body) => send(res, 200, body, registry.contentType));
      return;
    }
    send(res, 404, { error: { code: 'not_found', message: 'no such route' } });
  });
  await listenOrExplain(server, config.workerPort, config.host, 'WORKER_PORT');
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    url: `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
