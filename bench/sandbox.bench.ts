import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BubblewrapRunner, type CommandRunner, ProcessRunner } from '@pullwright/sandbox';
import type { BenchResult } from './run.ts';

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const round = (n: number) => Math.round(n * 100) / 100;

function spawnTrue(cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    spawn('true', [], { cwd, stdio: 'ignore' })
      .on('error', reject)
      .on('close', () => resolve());
  });
}

async function time(iterations: number, once: () => Promise<unknown>): Promise<number> {
  await once(); // warm-up: page cache, first cgroup creation, module init
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/**
 * Start overhead of the sandbox: median wall time of running `true` under the
 * BubblewrapRunner (prlimit + per-command cgroup + bwrap namespaces and mounts) against a
 * plain spawn of `true`, measured in the same run. The ProcessRunner row separates what the
 * runner's own work (sh -c, private HOME) costs from what bwrap adds.
 */
export default async function sandboxBench(opts: { smoke: boolean }): Promise<BenchResult[]> {
  const iterations = opts.smoke ? 10 : 60;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pw-bench-sandbox-'));
  try {
    const run = (runner: CommandRunner) => () => runner.run({ command: 'true', cwd: dir, timeoutMs: 10_000 });
    const plain = await time(iterations, () => spawnTrue(dir));
    const processRunner = await time(iterations, run(new ProcessRunner()));
    const results: BenchResult[] = [
      { name: 'plain spawn of true (median)', value: round(plain), unit: 'ms' },
      {
        name: 'ProcessRunner true (median)',
        value: round(processRunner),
        unit: 'ms',
        baseline: round(plain),
        ratio: round(processRunner / plain),
      },
    ];
    const bwrap = new BubblewrapRunner();
    const probe = await bwrap.probe().then(
      () => true,
      () => false,
    );
    if (probe) {
      const sandboxed = await time(iterations, run(bwrap));
      results.push(
        {
          name: 'BubblewrapRunner true (median)',
          value: round(sandboxed),
          unit: 'ms',
          baseline: round(plain),
          ratio: round(sandboxed / plain),
          target: 'start overhead < 50 ms per command',
        },
        {
          name: 'sandbox start overhead over plain spawn',
          value: round(sandboxed - plain),
          unit: 'ms',
          target: '< 50 ms',
        },
      );
    }
    return results;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
