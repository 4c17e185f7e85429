import { readdirSync, readFileSync } from 'node:fs';
import { eventually } from '@pullwright/testing/eventually';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliProcess, spawnCli } from './support/cli-process.ts';
import { redisEnv } from './support/redis-env.ts';
import { createSampleRepo } from './support/sample-repo.ts';
import { DEMO_TRANSCRIPT, startTestSystem, type TestSystem } from './support/test-runtime.ts';

/**
 * A worker killed with SIGKILL takes its sandboxed commands with it (bubblewrap's
 * `--die-with-parent` over the whole chain: the overlay's `unshare`, the network namespace,
 * the check's own children). A check left running would keep its CPU, its memory and its
 * view of the worktree after the job was handed to another worker.
 */

/** Host pids whose command line contains `marker` (a sandboxed process is visible on the host's /proc). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

describe('a killed worker', () => {
  let sys: TestSystem;
  let worker: CliProcess | undefined;
  const marker = `pwalive${Math.random().toString(36).slice(2, 10)}`;
  afterAll(async () => {
    if (worker && worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    await worker?.exited;
    // Should the test fail, what outlived the worker does not outlive the test.
    for (const pid of processesWith(marker)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await sys?.stop();
  });

  it('leaves no sandboxed check running', async () => {
    sys = await startTestSystem({ worker: false });
    // The check starts a child of its own too, and both would run for ten minutes.
    const repo = await createSampleRepo(sys.runtime.localForge!, 'acme/hangs', {
      'package.json': JSON.stringify({ name: 'hangs', scripts: { test: `node hang.js ${marker}` } }),
      'hang.js': [
        "const { spawn } = require('node:child_process');",
        `spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)', '${marker}-child'], { stdio: 'ignore' });`,
        'setTimeout(() => {}, 600000);',
      ].join('\n'),
    });
    worker = spawnCli(
      ['worker'],
      {
        LOG_LEVEL: 'info',
        WORKER_PORT: '0',
        ...redisEnv(),
        VERIFICATION_KEY: sys.runtime.config.verificationKey!,
        REDIS_PREFIX: sys.runtime.config.redisPrefix,
        DATA_DIR: sys.dataDir,
        LLM_PROVIDER: 'replay',
        REPLAY_FILE: DEMO_TRANSCRIPT,
        CHECK_TIMEOUT_MS: '600000',
      },
      '"worker started"',
    );
    await worker.ready;
    const res = await sys.request('POST', '/v1/operations', { type: 'debug', repo, description: 'fix the hang' });
    expect(res.status).toBe(202);

    // The baseline runs the check beside the model: the check and its child are up.
    const running = await eventually(
      'the sandboxed check and its child run',
      () => {
        const pids = processesWith(marker);
        return processesWith(`${marker}-child`).length > 0 && pids.length >= 2 ? pids : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(running.length).toBeGreaterThanOrEqual(2);

    worker.child.kill('SIGKILL');
    await worker.exited;
    await eventually('no process of the check outlives the worker', () => processesWith(marker).length === 0, {
      timeoutMs: 10_000,
    });
    expect(processesWith(marker)).toEqual([]);
  });
});
