import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadReplayTranscript, ReplayProvider, type ReplayTranscript } from '@pullwright/agent';
import { startWorker } from '@pullwright/code-worker';
import { FINAL_STATUSES, loadConfig, type OperationEvent, silentLogger } from '@pullwright/core';
import { createRuntime, type Runtime } from '@pullwright/pipeline';
import { startRedisServer } from '@pullwright/queue';
import type { BenchResult } from './run.ts';
import { benchEnv, TRANSCRIPT } from './support/bench-env.ts';
import { appendHistory } from './support/history.ts';
import { SMALL_LIBRARY, writeSmallLibrary } from './support/small-library.ts';

const run = promisify(execFile);
const REPO = 'bench/library';
/** A few years of a small library's history: small files rewritten, not large ones. */
const HISTORY = { commits: 300, files: 40, bytes: 4 * 1024, dir: 'docs/notes' };

/**
 * The recorded fix, made distinct for round `n` (a comment on the changed line): a real model's
 * fixes differ, so each operation's changed tree is new and its suite really runs — the same
 * replay every time would be served from the check cache and flatter us.
 */
function fixOfRound(base: ReplayTranscript, n: number): ReplayTranscript {
  return {
    ...base,
    turns: base.turns.map((turn) => ({
      ...turn,
      content: turn.content.map((block) =>
        block.type === 'tool_use' && block.name === 'edit_file'
          ? { ...block, input: { ...block.input, newText: `${String(block.input.newText)} // round ${n}` } }
          : block,
      ),
    })),
  };
}

/** The benchmark repository on the forge: the small library with its history. */
async function createLibrary(runtime: Runtime, root: string, smoke: boolean): Promise<number> {
  const dir = path.join(root, 'library');
  const tests = await writeSmallLibrary(dir, smoke ? { modules: 8, testsPerModule: 50 } : SMALL_LIBRARY);
  const forge = runtime.localForge!;
  await forge.createRepository(REPO, {}, { fromDir: dir });
  const work = path.join(root, 'history');
  await run('git', ['clone', '-q', forge.repoDir(REPO), work]);
  await appendHistory(work, smoke ? { ...HISTORY, commits: 30 } : HISTORY);
  await run('git', ['push', '-q', 'origin', 'main'], { cwd: work });
  await rm(work, { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
  return tests;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const at = (e: OperationEvent) => Date.parse(e.ts);

/** One /debug operation from the REST-equivalent request to its PR, timed off its own events. */
async function operation(runtime: Runtime): Promise<{ firstModelMs: number; jobMs: number; steps: OperationEvent[] }> {
  const started = Date.now();
  const op = await runtime.actions.create({
    type: 'debug',
    repo: REPO,
    baseBranch: 'main',
    description: 'slugify keeps spaces',
    requester: { source: 'api', user: 'bench' },
  });
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    const cur = await runtime.store.get(op.op.id);
    if (cur.status === 'awaiting_approval' || FINAL_STATUSES.has(cur.status)) {
      if (cur.status !== 'awaiting_approval') throw new Error(`operation ended ${cur.status}: ${cur.error}`);
      break;
    }
    if (Date.now() > deadline) throw new Error('operation did not reach a PR in 5 minutes');
    await new Promise((r) => setTimeout(r, 20));
  }
  const events = await runtime.events.list(op.op.id);
  const firstModel = events.find((e) => e.type === 'model');
  const opened = events.find((e) => e.type === 'status' && e.data.to === 'awaiting_approval');
  return {
    firstModelMs: (firstModel ? at(firstModel) : Number.NaN) - started,
    jobMs: (opened ? at(opened) : Number.NaN) - started,
    // `ready`: a baseline that ran beside the model (its time overlaps the agent's).
    steps: events.filter((e) => e.type === 'step' && (e.data.state === 'finished' || e.data.state === 'ready')),
  };
}

/** The same job by hand: clone over the transport a remote uses, the fix, the tests, commit, push, PR. */
async function byHand(
  runtime: Runtime,
  root: string,
  fixed: string,
  i: number,
): Promise<{ cloneMs: number; jobMs: number }> {
  const forge = runtime.localForge!;
  const dir = path.join(root, `hand${i}`);
  const git = (...args: string[]) =>
    run('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: dir });
  const started = performance.now();
  await run('git', ['clone', '-q', `file://${forge.repoDir(REPO)}`, dir]);
  const cloneMs = performance.now() - started;
  await writeFile(path.join(dir, 'src/slugify.js'), fixed);
  await run('npm', ['test'], { cwd: dir });
  await git('checkout', '-q', '-b', `hand/${i}`);
  await git('commit', '-qam', 'fix slugify');
  await git('push', '-q', 'origin', `hand/${i}`);
  await forge.openPullRequest({ repo: REPO, head: `hand/${i}`, base: 'main', title: 'fix', body: '' });
  const jobMs = performance.now() - started;
  await rm(dir, { recursive: true, force: true });
  return { cloneMs, jobMs };
}

/**
 * Time to PR on a warm service with an instant (replayed) model: request → first model call
 * against a raw clone of the same repository, and the whole job (request → PR awaiting
 * approval) against the same job done by hand, measured in the same run. Then the step
 * breakdown of the warm operations, so each remaining second has a name.
 */
export default async function timeToPrBench(opts: { smoke: boolean }): Promise<BenchResult[]> {
  const rounds = opts.smoke ? 2 : 6;
  const server = await startRedisServer();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pw-bench-ttpr-'));
  const runtime = await createRuntime(loadConfig(benchEnv(server.url, 'ttpr', dataDir)), silentLogger());
  const worker = await startWorker(runtime);
  try {
    const tests = await createLibrary(runtime, dataDir, opts.smoke);
    const recorded = loadReplayTranscript(TRANSCRIPT);
    const answer = (n: number) => {
      const transcript = fixOfRound(recorded, n);
      runtime.createProvider = () => new ReplayProvider(transcript);
    };
    answer(0);
    const cold = await operation(runtime);
    const first = await runtime.store.list({ repo: REPO });
    const branch = first[0]!.branch!;
    const fixed = (await run('git', ['show', `${branch}:src/slugify.js`], { cwd: runtime.localForge!.repoDir(REPO) }))
      .stdout;
    const warm: Awaited<ReturnType<typeof operation>>[] = [];
    const hand: Awaited<ReturnType<typeof byHand>>[] = [];
    for (let i = 0; i < rounds; i++) {
      answer(i + 1);
      warm.push(await operation(runtime));
      hand.push(await byHand(runtime, dataDir, fixed, i));
    }
    const r = (n: number) => Number(n.toFixed(2));
    const firstModel = median(warm.map((w) => w.firstModelMs));
    const clone = median(hand.map((h) => h.cloneMs));
    const job = median(warm.map((w) => w.jobMs));
    const manual = median(hand.map((h) => h.jobMs));
    const byStep = new Map<string, number[]>();
    for (const w of warm)
      for (const s of w.steps) {
        const name = s.data.state === 'ready' ? `${String(s.data.step)} (beside the model)` : String(s.data.step);
        byStep.set(name, [...(byStep.get(name) ?? []), Number(s.data.durationMs ?? 0)]);
      }
    const commits = Number(
      (await run('git', ['rev-list', '--count', 'main'], { cwd: runtime.localForge!.repoDir(REPO) })).stdout,
    );
    return [
      { name: 'repository: tests in its suite (node --test)', value: tests, unit: 'tests' },
      { name: 'repository: history', value: commits, unit: 'commits' },
      { name: 'cold operation: request → first model call', value: r(cold.firstModelMs), unit: 'ms' },
      { name: 'cold operation: request → PR', value: r(cold.jobMs), unit: 'ms' },
      {
        name: `request → first model call vs raw clone (warm, p50 of ${rounds})`,
        value: r(firstModel),
        unit: 'ms',
        baseline: r(clone),
        ratio: r(firstModel / clone),
        target: '<= 1.0x',
      },
      {
        name: `whole job vs the same job by hand (warm, p50 of ${rounds})`,
        value: r(job),
        unit: 'ms',
        baseline: r(manual),
        ratio: r(job / manual),
        target: '<= 1.2x',
      },
      ...[...byStep.entries()].map(([step, ms]) => ({
        name: `  step ${step} (p50)`,
        value: r(median(ms)),
        unit: 'ms',
      })),
    ];
  } finally {
    await worker.close();
    await runtime.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
