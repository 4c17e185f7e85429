import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../support/free-port.ts';
import { type ContainerStack, compose, engineObjects } from './support/container-stack.ts';
import { dockerCommand } from './support/docker-command.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ENGINE_DIR = process.env.PULLWRIGHT_ENGINE_DIR || '/tmp/pullwright-engine';
/** One project name: its images are reused by the next run (only the build cache is per layer). */
const PROJECT = 'pullwright-containers';
/**
 * The worker's limits for this run. Memory is lower than the 4g default so that the memory hog
 * check reaches it with 1.5 GB of allocations rather than 4 GB on a shared machine; the pids
 * limit is compose's default, as deployed.
 */
const WORKER_LIMITS = { memoryBytes: 1536 * 1024 ** 2, pids: 1024, cpus: 1 };
/** A corporate proxy's CA, or the host's own bundle: the build trusts what this host trusts. */
const HOST_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

interface ScriptResult {
  status: number;
  stderr: string;
}

/** Runs one of the repository's shell scripts, its progress shown as it goes. */
function runScript(script: string, args: string[] = []): Promise<ScriptResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(ROOT, script), ...args], {
      env: { ...process.env, PULLWRIGHT_ENGINE_DIR: ENGINE_DIR },
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      process.stderr.write(chunk);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? 1, stderr }));
  });
}

/**
 * One suite per machine at a time: runs share the engine (a second run's `down` would stop it
 * under the first) and the project name. A lock left by a process that is gone is taken over.
 */
async function lockSuite(): Promise<() => void> {
  const lock = path.join(ENGINE_DIR, 'suite.lock');
  mkdirSync(ENGINE_DIR, { recursive: true });
  for (const deadline = Date.now() + 30 * 60_000; ; ) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      return () => rmSync(lock, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number(existsSync(path.join(lock, 'pid')) ? readFileSync(path.join(lock, 'pid'), 'utf8') : 0);
    let alive = false;
    try {
      alive = holder > 0 && process.kill(holder, 0);
    } catch {
      alive = false;
    }
    if (!alive) rmSync(lock, { recursive: true, force: true });
    else if (Date.now() > deadline) throw new Error(`container suite: another run (pid ${holder}) holds ${lock}`);
    else await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

const seconds = (ms: number) => (ms < 90_000 ? `${(ms / 1000).toFixed(0)} s` : `${(ms / 60_000).toFixed(1)} min`);
const megabytes = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;

async function imageSize(image: string): Promise<string> {
  return megabytes(Number((await dockerCommand(['image', 'inspect', '--format', '{{.Size}}', image])).trim()));
}

/**
 * `npm run test:containers`: a Docker engine (docker/local-engine.sh: the one that answers, or
 * dockerd from Debian's docker.io started here), the base images (docker/base-images.sh: kept
 * when present), the project's images built from its Dockerfiles and the stack booted with
 * `docker compose up -d --build --wait`, as docs/deploying.md shows. Where no engine can be
 * had the suite is skipped with the reason — except in CI (CI=true), where that fails the run.
 */
export default async function setup(project: TestProject) {
  const started = performance.now();
  const unlock = await lockSuite();
  const engine = await runScript('docker/local-engine.sh', ['up']);
  if (engine.status === 3) {
    const reason =
      engine.stderr
        .trim()
        .split('\n')
        .at(-1)
        ?.replace(/^local-engine: /, '') ?? 'no Docker engine';
    unlock();
    if (process.env.CI === 'true') {
      throw new Error(`container suite: ${reason}. CI must run it: .ci/run installs docker.io and mmdebstrap`);
    }
    process.stdout.write(`\ncontainer suite SKIPPED: ${reason}\n\n`);
    project.provide('containerStack', null);
    return;
  }
  if (engine.status !== 0) throw new Error(`container suite: docker/local-engine.sh up failed (exit ${engine.status})`);
  const engineReady = performance.now();

  const stopEngine = async () => {
    const down = await runScript('docker/local-engine.sh', ['down']);
    unlock();
    if (down.status !== 0) throw new Error('container suite: docker/local-engine.sh down failed');
  };
  try {
    const base = await runScript('docker/base-images.sh');
    if (base.status !== 0) throw new Error(`container suite: docker/base-images.sh failed (exit ${base.status})`);
    const baseReady = performance.now();

    const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-containers-'));
    const port = await freePort();
    const caBundle = process.env.EXTRA_CA_CERT || (existsSync(HOST_CA_BUNDLE) ? HOST_CA_BUNDLE : '');
    // The operator's .env for this run; docker-compose.yml and .env.example are what it sets.
    const envFile = path.join(dir, '.env');
    writeFileSync(
      envFile,
      [
        'API_BIND=127.0.0.1',
        `API_PORT=${port}`,
        `PUBLIC_URL=http://127.0.0.1:${port}`,
        // A recorded model: the workers replay it for any request (the image's own copy).
        'LLM_PROVIDER=replay',
        'REPLAY_FILE=/app/apps/cli/demo/debug-slugify.replay.json',
        `EXTRA_CA_CERT=${caBundle}`,
        `WORKER_MEMORY=${WORKER_LIMITS.memoryBytes / 1024 ** 2}m`,
        `WORKER_PIDS=${WORKER_LIMITS.pids}`,
        `WORKER_CPUS=${WORKER_LIMITS.cpus}`,
        '',
      ].join('\n'),
    );
    const stack: ContainerStack = {
      project: PROJECT,
      composeArgs: [
        'compose',
        '--project-name',
        PROJECT,
        '--project-directory',
        ROOT,
        '--env-file',
        envFile,
        '--file',
        path.join(ROOT, 'docker-compose.yml'),
        '--file',
        path.join(import.meta.dirname, 'compose.test.yml'),
      ],
      apiUrl: `http://127.0.0.1:${port}`,
      workerLimits: WORKER_LIMITS,
      before: await engineObjects(),
    };
    // A run that was killed may have left its stack: start from nothing.
    await compose(stack, ['down', '--volumes', '--remove-orphans']);
    stack.before = await engineObjects();
    await dockerCommand([...stack.composeArgs, 'up', '--detach', '--build', '--wait'], { echo: true });
    const booted = performance.now();

    const sizes = {
      api: await imageSize(`${PROJECT}-api`),
      worker: await imageSize(`${PROJECT}-worker`),
      node: await imageSize('node:22-bookworm-slim'),
      redis: await imageSize('redis:7-bookworm'),
    };
    const summary = [
      `container suite: images api ${sizes.api}, worker ${sizes.worker} (bases node:22-bookworm-slim ${sizes.node}, redis:7-bookworm ${sizes.redis})`,
      `container suite: nothing → booted stack in ${seconds(booted - started)} (engine ${seconds(engineReady - started)}, base images ${seconds(baseReady - engineReady)}, project images and compose up ${seconds(booted - baseReady)})`,
    ].join('\n');
    process.stdout.write(`\n${summary}\n\n`);
    project.provide('containerStack', stack);

    return async () => {
      // The teardown test has already brought the stack down; this is for a run that failed first.
      await compose(stack, ['down', '--volumes', '--remove-orphans']).catch((err: Error) => {
        process.stderr.write(`${err.message}\n`);
      });
      rmSync(dir, { recursive: true, force: true });
      process.stdout.write(`\n${summary}\ncontainer suite: ${seconds(performance.now() - started)} in all\n`);
      await stopEngine();
    };
  } catch (err) {
    await stopEngine();
    throw err;
  }
}
