import { OPERATION_STATUSES } from '@pullwright/core';
import { type EvalReport, EvalRunStore, FAILURE_REASONS } from '@pullwright/eval';
import type { Runtime } from '@pullwright/pipeline';
import { MetricsStore, type MetricsTotals, STEP_BUCKETS_S } from '@pullwright/queue';
import { Router } from 'express';
import { Counter, collectDefaultMetrics, Gauge, type Metric, Registry } from 'prom-client';
import { bearerAuth } from './bearer-auth.ts';
import { type ScannedOperation, scanOperations } from './metrics-operation-scan.ts';

type MetricsDeps = Pick<Runtime, 'redis' | 'keys' | 'store' | 'queue' | 'config'> & {
  /** Epoch milliseconds: ages (the oldest waiting job, lock waits) are measured against it. */
  now: () => number;
};

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;

/**
 * Evaluation runs a scrape reads: the newest run of each (tasks file, model) among them is
 * exported. A team runs a handful of suites and models; fifty runs cover the latest of each.
 */
const EVAL_RUNS_SCANNED = 50;

interface Snapshot {
  ops: ScannedOperation[];
  /** The newest evaluation run of each suite and model. */
  evalRuns: EvalReport[];
  totals: MetricsTotals;
  jobs: Record<string, number>;
  oldestWaitingS: number;
  workers: number | undefined;
  now: number;
}

/** The newest report of each (suite, model): reports come newest first. */
function latestPerSuite(reports: EvalReport[]): EvalReport[] {
  const seen = new Set<string>();
  return reports.filter((r) => {
    const key = JSON.stringify([r.suite, r.model]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

async function takeSnapshot(deps: MetricsDeps, store: MetricsStore, evals: EvalRunStore): Promise<Snapshot> {
  const queue = deps.queue.queue;
  const [ops, evalRuns, totals, jobs, oldest, workers] = await Promise.all([
    scanOperations(deps),
    evals.list(EVAL_RUNS_SCANNED).then(latestPerSuite),
    store.read(),
    queue.getJobCounts(...QUEUE_STATES),
    deps.queue.oldestWaiting(),
    // CLIENT LIST is disabled on some managed Redis services: then the gauge is left out.
    queue.getWorkersCount().catch(() => undefined),
  ]);
  const now = deps.now();
  return {
    ops,
    evalRuns,
    totals,
    jobs,
    oldestWaitingS: oldest ? Math.max(0, now - oldest.timestamp) / 1000 : 0,
    workers,
    now,
  };
}

/**
 * `GET /metrics` in Prometheus text format. Everything is computed at scrape time from
 * Redis, because worker processes have no HTTP server: operation counts from the newest
 * operations (bounded, see SCAN_LIMIT), queue depth and workers from BullMQ, and the
 * counters the workers keep in Redis (step durations, tokens, cost; see MetricsStore).
 * The API process's own runtime metrics come along with the `pullwright_api_` prefix.
 * Open unless METRICS_TOKEN is set.
 */
export function metricsRouter(deps: MetricsDeps): Router {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'pullwright_api_' });
  const store = new MetricsStore(deps.redis, deps.keys);
  const evals = new EvalRunStore(deps.redis, deps.keys);
  let current: Snapshot | undefined;
  const registers = { registers: [registry] };

  new Gauge({
    name: 'pullwright_operations',
    help: 'Operations by status, among the newest pullwright_operations_scanned',
    labelNames: ['status'],
    ...registers,
    collect() {
      this.reset();
      for (const status of OPERATION_STATUSES) this.set({ status }, 0);
      for (const op of current?.ops ?? []) this.inc({ status: op.status });
    },
  });
  new Gauge({
    name: 'pullwright_operations_scanned',
    help: 'Newest operations the per-status counts are taken from',
    ...registers,
    collect() {
      this.set(current?.ops.length ?? 0);
    },
  });
  new Gauge({
    name: 'pullwright_operations_stuck',
    help: 'Running operations the watchdog reports as stuck (no event for STUCK_AFTER_MS)',
    ...registers,
    collect() {
      this.set(current?.ops.filter((op) => op.stuck && op.status === 'running').length ?? 0);
    },
  });
  new Gauge({
    name: 'pullwright_lock_waits',
    help: 'Operations waiting for file locks held by another operation',
    ...registers,
    collect() {
      this.set(current?.ops.filter((op) => op.waiting).length ?? 0);
    },
  });
  new Gauge({
    name: 'pullwright_lock_wait_oldest_seconds',
    help: 'How long the longest current wait for file locks has lasted',
    ...registers,
    collect() {
      const since = (current?.ops ?? []).flatMap((op) => (op.waiting ? [Date.parse(op.waiting.since)] : []));
      this.set(since.length && current ? Math.max(0, current.now - Math.min(...since)) / 1000 : 0);
    },
  });
  new Gauge({
    name: 'pullwright_queue_jobs',
    help: 'Jobs in the code-operations queue by state',
    labelNames: ['state'],
    ...registers,
    collect() {
      for (const state of QUEUE_STATES) this.set({ state }, current?.jobs[state] ?? 0);
    },
  });
  new Gauge({
    name: 'pullwright_queue_oldest_waiting_seconds',
    help: 'Age of the oldest job waiting for a worker (0 when none waits)',
    ...registers,
    collect() {
      this.set(current?.oldestWaitingS ?? 0);
    },
  });
  new Gauge({
    name: 'pullwright_workers',
    help: 'Worker processes connected to the queue (BullMQ getWorkers)',
    ...registers,
    collect() {
      this.reset();
      if (current?.workers !== undefined) this.set(current.workers);
    },
  });
  const counter = (name: string, help: string, value: (t: MetricsTotals) => number, labels?: Record<string, string>) =>
    ({ name, help, value, labels }) as const;
  const usageCounters = [
    counter('pullwright_tokens_total', 'Model tokens used, by kind', (t) => t.usage.inputTokens, { kind: 'input' }),
    counter('pullwright_tokens_total', 'Model tokens used, by kind', (t) => t.usage.outputTokens, { kind: 'output' }),
    counter('pullwright_cost_usd_total', 'Model cost in US dollars', (t) => t.usage.costUsd),
    counter('pullwright_model_calls_total', 'Model calls', (t) => t.usage.modelCalls),
  ];
  const counters = new Map<string, Counter>();
  for (const c of usageCounters) {
    if (counters.has(c.name)) continue;
    const same = usageCounters.filter((other) => other.name === c.name);
    counters.set(
      c.name,
      new Counter({
        name: c.name,
        help: c.help,
        labelNames: c.labels ? Object.keys(c.labels) : [],
        ...registers,
        collect() {
          this.reset();
          if (!current) return;
          for (const s of same) {
            if (s.labels) this.inc(s.labels, s.value(current.totals));
            else this.inc(s.value(current.totals));
          }
        },
      }),
    );
  }
  new Counter({
    name: 'pullwright_operation_outcomes_total',
    help: 'Operations that ended, by type, final status and reason: the outcome code (merged, rejected, requested, budget, checks_failed, secret_found, internal…)',
    labelNames: ['type', 'status', 'reason'],
    ...registers,
    collect() {
      this.reset();
      for (const o of current?.totals.outcomes ?? [])
        this.inc({ type: o.type, status: o.status, reason: o.reason }, o.count);
    },
  });
  // The figures of `pullwright eval run` reports, the newest run of each suite and model.
  const evalGauges: [string, string, (r: EvalReport) => number | null][] = [
    ['pullwright_eval_tasks', 'Tasks in the newest evaluation run', (r) => r.tasks],
    ['pullwright_eval_solved', 'Tasks solved (pass@k, k = attempts per task)', (r) => r.solved],
    ['pullwright_eval_solve_rate', 'Solved tasks / tasks', (r) => r.solveRate],
    [
      'pullwright_eval_solve_rate_low',
      'Lower bound of the 95 % Wilson interval of the solve rate',
      (r) => r.interval.low,
    ],
    [
      'pullwright_eval_solve_rate_high',
      'Upper bound of the 95 % Wilson interval of the solve rate',
      (r) => r.interval.high,
    ],
    ['pullwright_eval_cost_per_task_usd', 'Model cost per task, every attempt counted', (r) => r.costUsd.perTask],
    [
      'pullwright_eval_cost_per_solve_usd',
      'Model cost per solved task (absent with no solve)',
      (r) => r.costUsd.perSolve,
    ],
    ['pullwright_eval_tokens_per_task', 'Model tokens per task', (r) => r.tokens.perTask],
    [
      'pullwright_eval_tokens_per_solve',
      'Model tokens per solved task (absent with no solve)',
      (r) => r.tokens.perSolve,
    ],
    [
      'pullwright_eval_wall_seconds_per_task',
      'Operation time per task, every attempt counted',
      (r) => r.wallMs.perTask / 1000,
    ],
    ['pullwright_eval_turns_per_task', 'Model calls per task', (r) => r.turns.perTask],
    ['pullwright_eval_repairs_per_task', 'Fixer rounds per task', (r) => r.repairs.perTask],
    [
      'pullwright_eval_finished_timestamp_seconds',
      'When the newest evaluation run finished',
      (r) => Date.parse(r.finishedAt) / 1000,
    ],
  ];
  for (const [name, help, value] of evalGauges)
    new Gauge({
      name,
      help,
      labelNames: ['suite', 'model'],
      ...registers,
      collect() {
        this.reset();
        for (const r of current?.evalRuns ?? []) {
          const v = value(r);
          if (v !== null) this.set({ suite: r.suite, model: r.model }, v);
        }
      },
    });
  new Gauge({
    name: 'pullwright_eval_unsolved',
    help: 'Unsolved tasks of the newest evaluation run, by reason (no_change, checks_red, hidden_tests_red, budget, error)',
    labelNames: ['suite', 'model', 'reason'],
    ...registers,
    collect() {
      this.reset();
      for (const r of current?.evalRuns ?? [])
        for (const reason of FAILURE_REASONS) this.set({ suite: r.suite, model: r.model, reason }, r.failures[reason]);
    },
  });

  // The histogram's buckets are counted in Redis by the workers; prom-client's Histogram can
  // only observe in-process, so this one renders the stored counts itself.
  const stepHistogram = {
    name: 'pullwright_step_duration_seconds',
    help: 'Duration of pipeline steps (prepare, agent, verify, publish) and whole jobs (run, merge)',
    type: 'histogram',
    aggregator: 'sum',
    async get() {
      const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
      for (const [step, h] of current?.totals.steps ?? []) {
        STEP_BUCKETS_S.forEach((bound, i) => {
          values.push({ metricName: `${this.name}_bucket`, labels: { step, le: bound }, value: h.cumulative[i]! });
        });
        values.push({ metricName: `${this.name}_bucket`, labels: { step, le: '+Inf' }, value: h.cumulative.at(-1)! });
        values.push({ metricName: `${this.name}_sum`, labels: { step }, value: h.sum });
        values.push({ metricName: `${this.name}_count`, labels: { step }, value: h.count });
      }
      return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
    },
  };
  registry.registerMetric(stepHistogram as unknown as Metric);

  // Concurrent scrapes share one snapshot and one rendering.
  let inflight: Promise<string> | undefined;
  const render = () => {
    inflight ??= (async () => {
      try {
        current = await takeSnapshot(deps, store, evals);
        return await registry.metrics();
      } finally {
        inflight = undefined;
      }
    })();
    return inflight;
  };

  const router = Router();
  if (deps.config.metricsToken) router.use(bearerAuth(deps.config.metricsToken));
  router.get('/', async (_req, res) => {
    const body = await render();
    res.set('content-type', registry.contentType).send(body);
  });
  return router;
}
