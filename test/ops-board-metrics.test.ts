import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '@pullwright/testing/eventually';
import { afterEach, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

function sample(text: string, name: string, labels = ''): number | undefined {
  const escaped = `${name}${labels}`.replace(/[{}"+.]/g, (c) => `\\${c}`);
  const match = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
}

describe('board and metrics', () => {
  let sys: TestSystem;
  afterEach(async () => sys?.stop());

  it('GET /v1/board shows lock holders, waiters, open branches and their overlaps', async () => {
    sys = await startTestSystem({ worker: false });
    const repo = await createSampleRepo(sys.runtime.localForge!);
    const { store, locks } = sys.runtime;
    const requester = { source: 'api' as const, user: 'dev' };
    const holder = await store.create({ type: 'fix', repo, baseBranch: 'main', description: 'a', requester });
    const waiter = await store.create({ type: 'fix', repo, baseBranch: 'main', description: 'b', requester });
    const grant = await locks.files.acquire(repo, ['src/slugify.js'], { opId: holder.id });
    expect(grant.ok).toBe(true);
    const merge = await locks.merge.acquire(repo, { opId: holder.id });
    expect(merge.ok).toBe(true);
    const since = new Date().toISOString();
    await store.transition(waiter.id, 'running', { waiting: { files: ['src/slugify.js'], holder: holder.id, since } });
    await locks.branches.register(repo, 'agent/a', {
      opId: holder.id,
      files: ['src/slugify.js', 'README.md'],
      prNumber: 1,
    });
    await locks.branches.register(repo, 'agent/b', { opId: waiter.id, files: ['src/slugify.js'] });
    await locks.branches.register(repo, 'agent/c', { opId: 'other', files: ['docs/x.md'] });

    expect((await fetch(`${sys.api.url}/v1/board`)).status).toBe(401);
    const res = await sys.request('GET', '/v1/board');
    expect(res.status).toBe(200);
    const board = (await res.json()) as { repos: Array<Record<string, unknown>>; scannedOperations: number };
    expect(board.scannedOperations).toBe(2);
    expect(board.repos).toHaveLength(1);
    expect(board.repos[0]).toMatchObject({
      repo,
      fileLocks: [{ path: 'src/slugify.js', opId: holder.id, token: grant.ok ? grant.token : -1 }],
      mergeLock: { opId: holder.id },
      waiting: [{ opId: waiter.id, status: 'running', files: ['src/slugify.js'], holder: holder.id, since }],
      overlaps: [
        {
          files: ['src/slugify.js'],
          branches: [
            { branch: 'agent/a', opId: holder.id, prNumber: 1 },
            { branch: 'agent/b', opId: waiter.id },
          ],
        },
      ],
    });
    expect((board.repos[0]!.branches as unknown[]).length).toBe(3);
    const lock = (board.repos[0]!.fileLocks as Array<{ expiresInMs: number }>)[0]!;
    expect(lock.expiresInMs).toBeGreaterThan(0);

    const filtered = (await (await sys.request('GET', '/v1/board?repo=acme/none')).json()) as { repos: unknown[] };
    expect(filtered.repos).toEqual([
      { repo: 'acme/none', fileLocks: [], mergeLock: null, waiting: [], branches: [], overlaps: [] },
    ]);
    expect((await sys.request('GET', '/v1/board?repo=..%2Fx')).status).toBe(400);
  });

  it('GET /metrics reports operations, queue, workers, step durations and usage', async () => {
    sys = await startTestSystem();
    const repo = await createSampleRepo(sys.runtime.localForge!);
    const res = await sys.request('POST', '/v1/operations', { type: 'debug', repo, description: 'fix slugify' });
    const { id } = (await res.json()) as { id: string };
    expect((await waitForStatus(sys, id, ['awaiting_approval', 'failed'])).status).toBe('awaiting_approval');
    // Metrics are recorded after the job's last step (cleanup runs after awaiting_approval);
    // under a loaded CI machine that can take seconds.
    const text = await eventually(
      'the run step is counted in /metrics',
      async () => {
        const scrape = await fetch(`${sys.api.url}/metrics`);
        expect(scrape.status).toBe(200);
        expect(scrape.headers.get('content-type')).toContain('text/plain');
        const scraped = await scrape.text();
        return (sample(scraped, 'pullwright_step_duration_seconds_count', '{step="run"}') ?? 0) >= 1
          ? scraped
          : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(sample(text, 'pullwright_step_duration_seconds_count', '{step="run"}')).toBe(1);
    expect(sample(text, 'pullwright_operations', '{status="awaiting_approval"}')).toBe(1);
    expect(sample(text, 'pullwright_operations', '{status="failed"}')).toBe(0);
    expect(sample(text, 'pullwright_queue_jobs', '{state="waiting"}')).toBe(0);
    expect(sample(text, 'pullwright_queue_oldest_waiting_seconds')).toBe(0);
    expect(sample(text, 'pullwright_workers')).toBe(1);
    for (const step of ['prepare', 'agent', 'verify', 'publish', 'run']) {
      expect(sample(text, 'pullwright_step_duration_seconds_count', `{step="${step}"}`), step).toBe(1);
      expect(sample(text, 'pullwright_step_duration_seconds_bucket', `{step="${step}",le="+Inf"}`), step).toBe(1);
    }
    const op = await sys.runtime.store.get(id);
    expect(op.usage.modelCalls).toBeGreaterThan(0);
    expect(sample(text, 'pullwright_model_calls_total')).toBe(op.usage.modelCalls);
    expect(sample(text, 'pullwright_tokens_total', '{kind="input"}')).toBe(op.usage.inputTokens);
    expect(text).toContain('pullwright_api_process_cpu_seconds_total');
    // Every family docs/operating.md tells operators to alert on is served.
    const documented = new Set(
      readFileSync(path.resolve(import.meta.dirname, '../docs/operating.md'), 'utf8').match(/pullwright_[a-z_]+/g),
    );
    expect(documented.size).toBeGreaterThan(5);
    for (const family of documented) expect(text, family).toMatch(new RegExp(`^# TYPE ${family} `, 'm'));
  });

  it('GET /metrics takes a bearer token when METRICS_TOKEN is set, and queue age shows a waiting job', async () => {
    const METRICS_TOKEN = 'metrics-token-0123456789';
    let ahead = 0;
    sys = await startTestSystem({ worker: false, env: { METRICS_TOKEN }, now: () => Date.now() + ahead });
    const repo = await createSampleRepo(sys.runtime.localForge!);
    await sys.request('POST', '/v1/operations', { type: 'debug', repo, description: 'fix slugify' });
    expect((await fetch(`${sys.api.url}/metrics`)).status).toBe(401);
    ahead = 90_000;
    const scrape = await fetch(`${sys.api.url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const text = await scrape.text();
    // A run job waits in BullMQ's `prioritized` state (it carries the operation's priority).
    expect(sample(text, 'pullwright_queue_jobs', '{state="prioritized"}')).toBe(1);
    expect(sample(text, 'pullwright_queue_oldest_waiting_seconds')).toBeGreaterThanOrEqual(90);
    expect(sample(text, 'pullwright_operations', '{status="queued"}')).toBe(1);
    expect(sample(text, 'pullwright_workers')).toBe(0);
  });

  it('GET /metrics counts how operations ended, by type, status and reason', async () => {
    sys = await startTestSystem({ worker: false });
    const repo = await createSampleRepo(sys.runtime.localForge!);
    const ask = async (type: string) => {
      const res = await sys.request('POST', '/v1/operations', { type, repo, description: 'x' });
      return ((await res.json()) as { id: string }).id;
    };
    const { store } = sys.runtime;
    for (const id of [await ask('debug'), await ask('debug')])
      expect((await sys.request('POST', `/v1/operations/${id}/cancel`, {})).status).toBe(200);
    const failed = await ask('implement');
    await store.transition(failed, 'running');
    await store.end(failed, { code: 'budget', detail: 'cost $5.10 of $5.00' });
    // A write that does not change the status is not another ending.
    await store.patch(failed, {}, { type: 'checkpoint', data: { step: 'note' } });
    const text = await (await fetch(`${sys.api.url}/metrics`)).text();
    const outcome = (labels: string) => sample(text, 'pullwright_operation_outcomes_total', labels);
    expect(outcome('{type="debug",status="cancelled",reason="requested"}')).toBe(2);
    expect(outcome('{type="implement",status="failed",reason="budget"}')).toBe(1);
    expect(text.match(/^pullwright_operation_outcomes_total\{/gm)).toHaveLength(2);
  });
});
