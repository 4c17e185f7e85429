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
import { DEV_TOOLCHAIN, startFakeNpmRegistry } from './support/fake-npm-registry.ts';
import { appendHistory } from './support/history.ts';
import { writeLibraryWithDependencies } from './support/library-with-dependencies.ts';
import { SMALL_LIBRARY, writeSmallLibrary } from './support/small-library.ts';

const run = promisify(execFile);
const LIBRARY = 'bench/library';
const TOOLCHAIN = 'bench/toolchain';
const FIRST_JOB = 'bench/first-job';
const SMOKE_LIBRARY = { modules: 8, testsPerModule: 50 };
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

/** A workload: a repository on the forge, and how a person installs it by hand. */
interface Workload {
  label: string;
  repo: string;
  tests: number;
  /** Its lock file: by hand, `npm ci` before the tests. */
  install: boolean;
}

/** Pushes `dir` to the forge as `repo`, with the library's history on top. */
async function publish(runtime: Runtime, root: string, dir: string, repo: string, smoke: boolean): Promise<void> {
  const forge = runtime.localForge!;
  await forge.createRepository(repo, {}, { fromDir: dir });
  const work = path.join(root, `history-${repo.replace('/', '-')}`);
  await run('git', ['clone', '-q', forge.repoDir(repo), work]);
  await appendHistory(work, smoke ? { ...HISTORY, commits: 30 } : HISTORY);
  await run('git', ['push', '-q', 'origin', 'main'], { cwd: work });
  await rm(work, { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
}

/** The issue 16 workload: the small library, no dependencies. */
async function library(runtime: Runtime, root: string, smoke: boolean): Promise<Workload> {
  const dir = path.join(root, 'library');
  const tests = await writeSmallLibrary(dir, smoke ? SMOKE_LIBRARY : SMALL_LIBRARY);
  await publish(runtime, root, dir, LIBRARY, smoke);
  return { label: 'no dependencies', repo: LIBRARY, tests, install: false };
}

/** The issue 29 workload: the same library with a dev toolchain from the local registry and its lock file. */
async function withDevDependencies(
  runtime: Runtime,
  root: string,
  smoke: boolean,
  registry: string,
): Promise<Workload> {
  const dir = path.join(root, 'toolchain');
  const tests = await writeLibraryWithDependencies(
    dir,
    smoke ? SMOKE_LIBRARY : SMALL_LIBRARY,
    registry,
    path.join(root, 'npm-cache-setup'),
  );
  await publish(runtime, root, dir, TOOLCHAIN, smoke);
  return { label: 'dev dependencies', repo: TOOLCHAIN, tests, install: true };
}

/**
 * The worker process's first job, on a small repository of its own: it pays the process's
 * start-up warm-up (V8 compiling the job's code paths, the first schema compilations), which a
 * repository's first operation in a running worker does not. Measured and reported on its own
 * row so that both workloads' cold rows measure the same thing — a new repository, the mirror
 * clone, the first model call — whichever of them runs first.
 */
async function firstJobOfProcess(runtime: Runtime, root: string): Promise<BenchResult> {
  const dir = path.join(root, 'first-job');
  await writeSmallLibrary(dir, SMOKE_LIBRARY);
  await publish(runtime, root, dir, FIRST_JOB, true);
  runtime.createProvider = () => new ReplayProvider(loadReplayTranscript(TRANSCRIPT));
  const first = await operation(runtime, FIRST_JOB);
  return { name: "the worker process's first job: request → first model call", value: first.firstModelMs, unit: 'ms' };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const at = (e: OperationEvent) => Date.parse(e.ts);

/** One /debug operation from the REST-equivalent request to its PR, timed off its own events. */
async function operation(
  runtime: Runtime,
  repo: string,
): Promise<{ firstModelMs: number; jobMs: number; steps: OperationEvent[] }> {
  const started = Date.now();
  const op = await runtime.actions.create({
    type: 'debug',
    repo,
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

/**
 * The same job by hand: clone over the transport a remote uses, `npm ci` when the repository
 * has a lock file (with the person's npm cache: empty the first time, warm after), the fix,
 * the tests, commit, push, PR.
 */
async function byHand(
  runtime: Runtime,
  root: string,
  workload: Workload,
  fixed: string,
  i: number,
): Promise<{ cloneMs: number; jobMs: number }> {
  const forge = runtime.localForge!;
  const repo = workload.repo;
  const dir = path.join(root, `hand-${repo.replace('/', '-')}-${i}`);
  const git = (...args: string[]) =>
    run('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: dir });
  const env = { ...process.env, npm_config_cache: path.join(root, `npm-cache-${repo.replace('/', '-')}`) };
  const started = performance.now();
  await run('git', ['clone', '-q', `file://${forge.repoDir(repo)}`, dir]);
  const cloneMs = performance.now() - started;
  if (workload.install) await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, env });
  await writeFile(path.join(dir, 'src/slugify.js'), fixed);
  await run('npm', ['test'], { cwd: dir, env });
  await git('checkout', '-q', '-b', `hand/${i}`);
  await git('commit', '-qam', 'fix slugify');
  await git('push', '-q', 'origin', `hand/${i}`);
  await forge.openPullRequest({ repo, head: `hand/${i}`, base: 'main', title: 'fix', body: '' });
  const jobMs = performance.now() - started;
  await rm(dir, { recursive: true, force: true });
  return { cloneMs, jobMs };
}

/**
 * One workload: `rounds.cold` cold operations (each the first on its repository: mirror,
 * dependencies and baseline all new) against cold jobs by hand (a fresh clone, an empty npm
 * cache), then `rounds.warm` warm operations against warm jobs by hand, side by side; p50s.
 */
async function measure(
  runtime: Runtime,
  root: string,
  workload: Workload,
  rounds: { cold: number; warm: number },
): Promise<BenchResult[]> {
  const recorded = loadReplayTranscript(TRANSCRIPT);
  const answer = (n: number) => {
    const transcript = fixOfRound(recorded, n);
    runtime.createProvider = () => new ReplayProvider(transcript);
  };
  const forge = runtime.localForge!;
  const forgeDir = forge.repoDir(workload.repo);
  // Each cold sample is a repository the service has never seen: a copy of the workload's under
  // a name of its own (mirror, dependency tree, baseline and check results are all kept by
  // repository), made before the first operation adds branches to copy.
  const copies: Workload[] = [];
  for (let i = 1; i < rounds.cold; i++) {
    const repo = `${workload.repo}-cold${i}`;
    await run('git', ['clone', '-q', '--bare', '--no-local', forgeDir, forge.repoDir(repo)]);
    copies.push({ ...workload, repo });
  }
  answer(0);
  const colds = [await operation(runtime, workload.repo)];
  const [first] = await runtime.store.list({ repo: workload.repo });
  const fixed = (await run('git', ['show', `${first!.branch!}:src/slugify.js`], { cwd: forgeDir })).stdout;
  const coldHands = [await byHand(runtime, root, workload, fixed, 0)];
  for (const copy of copies) {
    colds.push(await operation(runtime, copy.repo));
    coldHands.push(await byHand(runtime, root, copy, fixed, 0));
  }
  const warm: Awaited<ReturnType<typeof operation>>[] = [];
  const hand: Awaited<ReturnType<typeof byHand>>[] = [];
  for (let i = 1; i <= rounds.warm; i++) {
    answer(i);
    warm.push(await operation(runtime, workload.repo));
    hand.push(await byHand(runtime, root, workload, fixed, i));
  }
  const r = (n: number) => Number(n.toFixed(2));
  const coldFirstModel = median(colds.map((c) => c.firstModelMs));
  const coldClone = median(coldHands.map((h) => h.cloneMs));
  const coldJob = median(colds.map((c) => c.jobMs));
  const coldManual = median(coldHands.map((h) => h.jobMs));
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
  const commits = Number((await run('git', ['rev-list', '--count', 'main'], { cwd: forgeDir })).stdout);
  const lock = workload.install ? await lockedPackages(forgeDir) : 0;
  const label = workload.label;
  return [
    {
      name: `${label}: repository (tests, commits, locked packages)`,
      value: workload.tests,
      unit: `tests, ${commits} commits, ${lock} packages`,
    },
    {
      name: `${label}: request → first model call vs raw clone (cold, p50 of ${rounds.cold})`,
      value: r(coldFirstModel),
      unit: 'ms',
      baseline: r(coldClone),
      ratio: r(coldFirstModel / coldClone),
      target: '<= 1.5x',
    },
    {
      name: `${label}: whole job vs the job by hand (cold, p50 of ${rounds.cold})`,
      value: r(coldJob),
      unit: 'ms',
      baseline: r(coldManual),
      ratio: r(coldJob / coldManual),
      target: '<= 1.2x',
    },
    {
      name: `${label}: request → first model call vs raw clone (warm, p50 of ${rounds.warm})`,
      value: r(firstModel),
      unit: 'ms',
      baseline: r(clone),
      ratio: r(firstModel / clone),
      target: '<= 1.0x',
    },
    {
      name: `${label}: whole job vs the job by hand (warm, p50 of ${rounds.warm})`,
      value: r(job),
      unit: 'ms',
      baseline: r(manual),
      ratio: r(job / manual),
      target: '<= 0.8x',
    },
    ...[...byStep.entries()].map(([step, ms]) => ({
      name: `  step ${step} (p50)`,
      value: r(median(ms)),
      unit: 'ms',
    })),
  ];
}

/** The packages the repository's lock file pins (its base commit). */
async function lockedPackages(forgeDir: string): Promise<number> {
  const lock = JSON.parse((await run('git', ['show', 'main:package-lock.json'], { cwd: forgeDir })).stdout) as {
    packages: Record<string, unknown>;
  };
  return Object.keys(lock.packages).filter((p) => p !== '').length;
}

/**
 * Time to PR with an instant (replayed) model, for two workloads: the small library without
 * dependencies, and the same library with a dev toolchain and its lock file served by a local
 * npm registry. For each, the cold operation and the warm ones: request → first model call
 * against a raw clone of the same repository, and the whole job (request → PR awaiting
 * approval) against the same job done by hand, measured in the same run. Then the step
 * breakdown of the warm operations, so each remaining second has a name.
 */
export default async function timeToPrBench(opts: { smoke: boolean }): Promise<BenchResult[]> {
  const rounds = opts.smoke ? { cold: 1, warm: 1 } : { cold: 3, warm: 3 };
  const server = await startRedisServer();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pw-bench-ttpr-'));
  const registry = await startFakeNpmRegistry(
    path.join(dataDir, 'registry'),
    opts.smoke ? { packages: 8, filesPerPackage: 2, bytesPerFile: 256 } : DEV_TOOLCHAIN,
  );
  // The deployment allows its own registry, as an operator with an internal mirror does: install
  // reaches it through the egress proxy, nothing else.
  const env = { ...benchEnv(server.url, 'ttpr', dataDir), NETWORK_ALLOW: new URL(registry.url).host };
  const runtime = await createRuntime(loadConfig(env), silentLogger());
  const worker = await startWorker(runtime);
  try {
    const plain = await library(runtime, dataDir, opts.smoke);
    const toolchain = await withDevDependencies(runtime, dataDir, opts.smoke, registry.url);
    const first = await firstJobOfProcess(runtime, dataDir);
    return [
      first,
      ...(await measure(runtime, dataDir, plain, rounds)),
      ...(await measure(runtime, dataDir, toolchain, rounds)),
    ];
  } finally {
    await worker.close();
    await runtime.close();
    await registry.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
