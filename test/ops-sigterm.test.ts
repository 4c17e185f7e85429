import type { Operation } from '@pullwright/core';
import { eventually } from '@pullwright/testing/eventually';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { spawnWorker, type WorkerProcess } from './chaos/worker-process.ts';
import { createSampleRepo } from './support/sample-repo.ts';
import { DEMO_TRANSCRIPT, startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForOperation } from './support/wait-for-status.ts';

describe('SIGTERM during a job', () => {
  let sys: TestSystem;
  const workers: WorkerProcess[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) {
      if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
      await w.exited;
    }
    await sys?.stop();
  });

  const workerEnv = (extra: Record<string, string>) => ({
    REDIS_URL: inject('redisUrl'),
    VERIFICATION_KEY: sys.runtime.config.verificationKey!,
    REDIS_PREFIX: sys.runtime.config.redisPrefix,
    DATA_DIR: sys.dataDir,
    LLM_PROVIDER: 'replay',
    REPLAY_FILE: DEMO_TRANSCRIPT,
    CHECK_TIMEOUT_MS: '60000',
    ...extra,
  });

  async function startJob(grace: string): Promise<{ id: string; worker: WorkerProcess }> {
    const repo = await createSampleRepo(sys.runtime.localForge!);
    // Short job locks so a job left behind is recovered in about a second, not the production ~90 s.
    const worker = spawnWorker(
      workerEnv({ SHUTDOWN_GRACE_MS: grace, JOB_LOCK_MS: '1000', JOB_STALLED_INTERVAL_MS: '300' }),
    );
    workers.push(worker);
    await worker.ready;
    const res = await sys.request('POST', '/v1/operations', { type: 'debug', repo, description: 'fix slugify' });
    const { id } = (await res.json()) as { id: string };
    // SIGTERM once the agent loop has started: the job is surely in flight.
    await eventually(
      'the agent step has started',
      async () => (await sys.runtime.events.list(id)).some((e) => e.type === 'step' && e.data.step === 'agent'),
      { timeoutMs: 20_000, intervalMs: 25 },
    );
    return { id, worker };
  }

  async function expectOnePullRequest(op: Operation) {
    const forge = sys.runtime.localForge!;
    expect((await forge.findOpenPullRequest(op.repo, op.branch!))?.number).toBe(1);
    // No second PR was ever numbered for this repo, and the status reached approval once.
    expect(await sys.runtime.redis.get(`${sys.runtime.config.redisPrefix}:forge:{${op.repo}}:pr-seq`)).toBe('1');
    const toApproval = (await sys.runtime.events.list(op.id)).filter(
      (e) => e.type === 'status' && e.data.to === 'awaiting_approval',
    );
    expect(toApproval).toHaveLength(1);
  }

  /** SIGTERM, then the exit: code 0 within `withinMs`. */
  async function terminate(worker: WorkerProcess, withinMs: number) {
    const sent = Date.now();
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - sent).toBeLessThan(withinMs);
    // The log says when the stop began and that it ended: a clean stop, not a kill.
    expect(worker.output()).toMatch(/"signal":"SIGTERM".*"msg":"shutting down"/);
    expect(worker.output()).toMatch(/"msg":"stopped"/);
  }

  it('lets the running job finish within the grace period, then exits 0', async () => {
    sys = await startTestSystem({ worker: false });
    const { id, worker } = await startJob('20000');
    await terminate(worker, 20_000);
    const op = await sys.runtime.store.get(id);
    expect(op.status).toBe('awaiting_approval');
    await expectOnePullRequest(op);
  });

  it('exits 0 when the grace period ends first; another worker resumes the job without duplicating it', async () => {
    sys = await startTestSystem({ worker: false });
    const { id, worker } = await startJob('1');
    await terminate(worker, 5_000);
    expect(worker.output()).toContain('grace period over');
    expect((await sys.runtime.store.get(id)).status).toBe('running');

    const next = spawnWorker(workerEnv({ JOB_LOCK_MS: '1000', JOB_STALLED_INTERVAL_MS: '300' }));
    workers.push(next);
    await next.ready;
    const op = await waitForOperation(sys, id, (o) => o.status !== 'running', 30_000);
    expect(op.status).toBe('awaiting_approval');
    await expectOnePullRequest(op);
  });
});
