import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type CommandSpec, DockerRunner, EgressProxy, type RefusedConnection } from '@pullwright/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { dockerCommand } from './support/docker-command.ts';

const MiB = 1024 * 1024;
/** The base image the project's Dockerfiles build on: /bin/sh, node, and the `node` user (1000). */
const IMAGE = 'node:22-bookworm-slim';
const LIMITS = { pids: 32, memoryBytes: 64 * MiB, cpus: 1.5 };

/** The runner's containers still on the engine (running or not). */
async function sandboxContainers(): Promise<string> {
  return (
    await dockerCommand(['ps', '--all', '--filter', 'label=dev.pullwright.sandbox', '--format', '{{.Names}}'])
  ).trim();
}

/**
 * The Docker runner's table tests against the real dockerd (packages/sandbox's own test keeps
 * an Engine API stand-in for the request shape): what a container may do, what it may not, and
 * that each run leaves nothing behind.
 */
describe.skipIf(!inject('containerStack'))('DockerRunner on a real Docker engine', () => {
  const runner = new DockerRunner({ image: IMAGE, limits: LIMITS });
  let repo: string;
  const run = (command: string, extra: Partial<CommandSpec> = {}) =>
    runner.run({ command, cwd: repo, timeoutMs: 60_000, ...extra });

  beforeAll(() => {
    repo = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'pw-docker-real-')));
    execFileSync('git', ['init', '-q', repo]);
    mkdirSync(path.join(repo, 'packages/app'), { recursive: true });
    // The worktree belongs to the sandbox user, as a worker's worktrees do (DockerRunner notes).
    for (const entry of [repo, ...walk(repo)]) chownSync(entry, 1000, 1000);
  });

  afterEach(async () => {
    expect(await sandboxContainers()).toBe('');
  });

  afterAll(() => {
    rmSync(repo, { recursive: true, force: true });
  });

  it('answers a ping, so createCommandRunner can pick it', async () => {
    await expect(runner.available()).resolves.toBe(true);
  });

  it.each([
    ['exit 0', 0],
    ['exit 3', 3],
    ['false', 1],
    ['kill -TERM $$', 143],
  ])('reports the exit code of `%s` as %i', async (command, exitCode) => {
    const result = await run(command);
    expect(result.exitCode).toBe(exitCode);
    expect(result.killedBy).toBeUndefined();
  });

  it('collects stdout and stderr, as the sandbox user, in the worktree', async () => {
    const result = await run('echo out; echo err >&2; id -u; pwd', {
      cwd: path.join(repo, 'packages/app'),
      root: repo,
    });
    expect(result).toMatchObject({ exitCode: 0, truncated: false });
    // Two streams, interleaved as the engine delivers them: each in its own order.
    const lines = result.output.trimEnd().split('\n');
    expect(lines.filter((line) => line !== 'err')).toEqual(['out', '1000', '/workspace/packages/app']);
    expect(lines.filter((line) => line === 'err')).toHaveLength(1);
  });

  it("has no network but loopback; the install step's way out is the egress proxy's socket", async () => {
    const closed = await run('ls /sys/class/net');
    expect(closed.output.trim().split('\n')).toEqual(['lo']);
    const refused: RefusedConnection[] = [];
    const proxy = await EgressProxy.start(
      { allow: [], trusted: [], servicePorts: [] },
      { onRefused: (r) => refused.push(r) },
    );
    try {
      const install = await run(
        `ls /sys/class/net; node -e "require('http').request({ host: '127.0.0.1', port: new URL(process.env.HTTPS_PROXY).port, method: 'CONNECT', path: '169.254.169.254:80' }).on('connect', (res) => { console.log(res.statusCode); process.exit(0); }).end()"`,
        { egress: { socketDir: proxy.socketDir } },
      );
      expect(install.output.trim().split('\n')).toEqual(['lo', '403']);
      expect(refused).toEqual([{ host: '169.254.169.254', port: 80, reason: 'not_allowed' }]);
    } finally {
      await proxy.close();
    }
  });

  it('has a read-only root and .git, a writable worktree and /tmp', async () => {
    const result = await run(
      // Checks run under `bash -eo pipefail`: the refused writes are tolerated so the script goes on.
      'touch /usr/pw-probe || true; touch /workspace/.git/hooks/pw-probe || true; touch /workspace/built.txt && touch /tmp/scratch && echo wrote',
    );
    expect(result.output).toMatch(/'\/usr\/pw-probe': Read-only file system/);
    expect(result.output).toMatch(/'\/workspace\/\.git\/hooks\/pw-probe': Read-only file system/);
    expect(result.output).toContain('wrote');
    expect(statSync(path.join(repo, 'built.txt')).uid).toBe(1000);
  });

  it('runs with no capabilities and no way to gain one', async () => {
    const result = await run('grep -E "^(CapEff|CapPrm|CapBnd|NoNewPrivs)" /proc/self/status');
    expect(result.output).toMatch(/^CapEff:\s+0{16}$/m);
    expect(result.output).toMatch(/^CapPrm:\s+0{16}$/m);
    expect(result.output).toMatch(/^CapBnd:\s+0{16}$/m);
    expect(result.output).toMatch(/^NoNewPrivs:\s+1$/m);
  });

  it('puts the memory, pids and CPU limits on the container’s cgroup (v1 or v2)', async () => {
    const read = (v2: string, v1: string) => `cat /sys/fs/cgroup/${v2} 2>/dev/null || cat /sys/fs/cgroup/${v1}`;
    const result = await run(
      [
        read('memory.max', 'memory/memory.limit_in_bytes'),
        read('pids.max', 'pids/pids.max'),
        read('cpu.max', 'cpu/cpu.cfs_quota_us'),
      ].join('; '),
    );
    const [memory, pids, cpu] = result.output.trim().split('\n');
    expect(Number(memory)).toBe(LIMITS.memoryBytes);
    expect(Number(pids)).toBe(LIMITS.pids);
    // v2: "150000 100000"; v1: the quota alone, over the default 100 ms period.
    expect(Number(cpu?.split(' ')[0])).toBe(LIMITS.cpus * 100_000);
  });

  it('stops a memory hog at the memory limit (the kernel kills it, exit 137)', async () => {
    const result = await run(`node -e "const a=[]; for (;;) a.push(Buffer.alloc(8 << 20, 1))"`);
    expect(result.exitCode).toBe(137);
    expect(result.killedBy).toBeUndefined();
  });

  it('bounds a fork bomb by the pids limit', async () => {
    const result = await run('i=0; while [ $i -lt 500 ]; do sleep 60 & i=$((i+1)); done; echo spawned $i');
    expect(result.output).not.toContain('spawned 500');
    expect(result.output).toMatch(/fork|Resource temporarily unavailable/i);
    expect(result.exitCode).not.toBe(0);
  });

  it('kills the whole tree at the timeout and removes the container', async () => {
    const marker = `600.${process.pid}${Date.now() % 100_000}`;
    const timeoutMs = 1_500;
    const result = await run(`setsid sh -c 'trap "" TERM; exec sleep ${marker}' & sleep ${marker}`, { timeoutMs });
    expect(result).toMatchObject({ exitCode: null, killedBy: 'timeout' });
    expect(result.durationMs).toBeGreaterThanOrEqual(timeoutMs);
    // The container's processes are host processes: none of them survived it.
    expect(spawnSync('pgrep', ['-f', `sleep ${marker}`]).status).toBe(1);
  });

  it('kills the container when the run is aborted', async () => {
    const controller = new AbortController();
    const running = run('sleep 600', { signal: controller.signal });
    // The abort must find a started container: wait until the engine lists it.
    await expect.poll(sandboxContainers, { timeout: 60_000, interval: 100 }).not.toBe('');
    controller.abort();
    await expect(running).resolves.toMatchObject({ exitCode: null, killedBy: 'abort' });
  });

  it('caps the output it keeps', async () => {
    const result = await run('yes pullwright | head -c 1000000', { maxOutputBytes: 200 });
    expect(result.truncated).toBe(true);
    expect(result.output.length).toBeLessThan(300);
    expect(result.output).toMatch(/999800 characters omitted/);
  });

  it('turns a missing image into a typed error and leaves no container', async () => {
    const missing = new DockerRunner({ image: 'pullwright-no-such-image:0', limits: LIMITS });
    await expect(missing.run({ command: 'true', cwd: repo, timeoutMs: 10_000 })).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/create failed.*No such image/),
    });
  });
});

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? [full, ...walk(full)] : [full];
  });
}
