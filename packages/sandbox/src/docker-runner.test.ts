import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCommandRunner } from './create-command-runner.ts';
import { DockerRunner } from './docker-runner.ts';
import { shellArgv } from './shell-argv.ts';

const MiB = 1024 * 1024;

interface FakeContainer {
  id: string;
  body: Docker.ContainerCreateOptions;
  exit: (code: number) => void;
  exited: Promise<number>;
  output: Array<[1 | 2, string]>;
}

/** One Engine API log frame: stream id, three zero bytes, big-endian length, payload. */
function frame(stream: 1 | 2, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header.writeUInt8(stream, 0);
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

/**
 * A local stand-in for dockerd on a unix socket, speaking the subset of the Engine API that
 * dockerode uses for a run (ping, create, start, logs with follow, wait, kill, remove).
 * What a container "does" is chosen by its command: `echo …` prints and exits, `exit N`
 * exits, anything else runs until killed.
 */
class FakeEngine {
  readonly calls: string[] = [];
  /** Every create body, as received on the wire. */
  readonly created: Docker.ContainerCreateOptions[] = [];
  readonly containers = new Map<string, FakeContainer>();
  readonly server: http.Server;
  /** Holds each create's answer until it resolves (an engine that is slow to create). */
  beforeCreated: () => Promise<void> = async () => {};

  constructor(readonly socketPath: string) {
    this.server = http.createServer((req, res) => this.#handle(req, res));
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(this.socketPath, resolve));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://engine');
    const route = url.pathname.replace(/^\/v[\d.]+/, '');
    this.calls.push(`${req.method} ${route.replace(/[0-9a-f]{12,}/, ':id')}`);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const json = (status: number, body?: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    if (req.method === 'GET' && route === '/_ping') {
      res.end('OK');
      return;
    }
    if (req.method === 'POST' && route === '/containers/create') {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Docker.ContainerCreateOptions;
      this.created.push(body);
      if (body.Image !== 'pullwright-sandbox:test') return json(404, { message: `No such image: ${body.Image}` });
      const id = `${Date.now().toString(16)}${'a'.repeat(52)}`.slice(0, 64);
      let exit: (code: number) => void = () => {};
      const exited = new Promise<number>((resolve) => {
        exit = resolve;
      });
      this.containers.set(id, { id, body, exit, exited, output: [] });
      await this.beforeCreated();
      return json(201, { Id: id, Warnings: [] });
    }
    const match = /^\/containers\/([0-9a-f]+)(\/\w+)?$/.exec(route);
    const container = match?.[1] ? this.containers.get(match[1]) : undefined;
    if (!container) return json(404, { message: 'No such container' });
    const action = match?.[2] ?? '';
    if (req.method === 'POST' && action === '/start') {
      const script = container.body.Cmd?.at(-1) ?? '';
      const echo = /^echo (.*)$/.exec(script);
      const exitCode = /^exit (\d+)$/.exec(script);
      setTimeout(() => {
        if (echo) {
          container.output.push([1, `${echo[1]}\n`], [2, 'to stderr\n']);
          container.exit(0);
        } else if (exitCode) container.exit(Number(exitCode[1]));
      }, 5);
      return json(204);
    }
    if (req.method === 'GET' && action === '/logs') {
      res.writeHead(200, { 'content-type': 'application/vnd.docker.raw-stream' });
      await container.exited;
      for (const [stream, text] of container.output) res.write(frame(stream, text));
      res.end();
      return;
    }
    if (req.method === 'POST' && action === '/wait')
      return json(200, { StatusCode: await container.exited, Error: null });
    if (req.method === 'POST' && action === '/kill') {
      container.exit(137);
      return json(204);
    }
    if (req.method === 'DELETE' && action === '') {
      this.containers.delete(container.id);
      return json(204);
    }
    json(404, { message: `unexpected ${req.method} ${route}` });
  }
}

describe('DockerRunner against the Engine API contract', () => {
  let dir: string;
  let repo: string;
  let engine: FakeEngine;
  let runner: DockerRunner;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pw-docker-'));
    repo = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'pw-docker-repo-')));
    execFileSync('git', ['init', '-q', repo]);
    mkdirSync(path.join(repo, 'packages/app'), { recursive: true });
    engine = new FakeEngine(path.join(dir, 'docker.sock'));
    await engine.listen();
    runner = new DockerRunner({
      image: 'pullwright-sandbox:test',
      docker: new Docker({ socketPath: engine.socketPath }),
      limits: { pids: 64, memoryBytes: 256 * MiB, cpus: 1.5 },
    });
  });

  beforeEach(() => {
    engine.calls.length = 0;
  });

  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  });

  it('creates a locked-down container, collects its output and removes it', async () => {
    const result = await runner.run({
      command: 'echo hi',
      cwd: path.join(repo, 'packages/app'),
      root: repo,
      timeoutMs: 5_000,
    });
    expect(result).toMatchObject({ exitCode: 0, output: 'hi\nto stderr\n', truncated: false });
    expect(result.killedBy).toBeUndefined();
    expect(engine.calls).toEqual([
      'POST /containers/create',
      'POST /containers/:id/start',
      'GET /containers/:id/logs',
      'POST /containers/:id/wait',
      'DELETE /containers/:id',
    ]);
    expect(engine.containers.size).toBe(0);
  });

  it('sends the exact HostConfig: no network, read-only root, no capabilities, limits, non-root', async () => {
    await runner.run({ command: 'exit 0', cwd: path.join(repo, 'packages/app'), root: repo, timeoutMs: 5_000 });
    const body = engine.created.at(-1);
    expect(body?.HostConfig).toEqual({
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      PidsLimit: 64,
      Memory: 256 * MiB,
      MemorySwap: 256 * MiB,
      NanoCpus: 1_500_000_000,
      Init: true,
      Mounts: [
        { Type: 'bind', Source: repo, Target: '/workspace', ReadOnly: false },
        { Type: 'bind', Source: path.join(repo, '.git'), Target: '/workspace/.git', ReadOnly: true },
      ],
      Tmpfs: {
        '/tmp': 'rw,exec,nosuid,nodev,mode=1777,size=536870912',
        '/tmp/home': 'rw,exec,nosuid,nodev,mode=1777,size=536870912',
      },
      Ulimits: [
        { Name: 'core', Soft: 0, Hard: 0 },
        { Name: 'fsize', Soft: 2 * 1024 ** 3, Hard: 2 * 1024 ** 3 },
      ],
      AutoRemove: false,
    });
    expect(body).toMatchObject({
      Image: 'pullwright-sandbox:test',
      Cmd: ['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c', 'exit 0'],
      User: '1000:1000',
      WorkingDir: '/workspace/packages/app',
      NetworkDisabled: true,
      Tty: false,
    });
    expect(body?.name).toMatch(/^pullwright-sandbox-[0-9a-f]{12}$/);
    const env = body?.Env ?? [];
    expect(env).toContain('HOME=/tmp/home');
    expect(env.some((e) => e.startsWith('PATH='))).toBe(false);
  });

  it('never forwards worker secrets into the container environment', async () => {
    process.env.PW_CANARY_SECRET = 'docker-canary-value';
    try {
      const body = runner.containerOptions({ command: 'env', cwd: repo, timeoutMs: 1, env: { EXTRA: '1' } });
      expect(JSON.stringify(body)).not.toContain('docker-canary-value');
      expect(body.Env).toContain('EXTRA=1');
    } finally {
      delete process.env.PW_CANARY_SECRET;
    }
  });

  it("gives the install step no network but the egress proxy's socket, through the bridge", () => {
    const socketDir = mkdtempSync(path.join(os.tmpdir(), 'pw-egress-test-'));
    try {
      const body = runner.containerOptions({ command: 'npm ci', cwd: repo, timeoutMs: 1, egress: { socketDir } });
      expect(body.HostConfig?.NetworkMode).toBe('none');
      expect(body.NetworkDisabled).toBe(true);
      expect(body.HostConfig?.Mounts).toContainEqual({
        Type: 'bind',
        Source: socketDir,
        Target: '/run/pullwright/egress',
        ReadOnly: true,
      });
      expect(body.Cmd?.slice(0, 3)).toEqual([
        'node',
        '/run/pullwright/egress-bridge.cjs',
        '/run/pullwright/egress/proxy.sock',
      ]);
      expect(body.Cmd?.slice(3)).toEqual(shellArgv('npm ci'));
    } finally {
      rmSync(socketDir, { recursive: true, force: true });
    }
  });

  it('reports the exit code of a failing command', async () => {
    const result = await runner.run({ command: 'exit 3', cwd: repo, timeoutMs: 5_000 });
    expect(result.exitCode).toBe(3);
    expect(engine.calls.at(-1)).toBe('DELETE /containers/:id');
  });

  it('kills the container at the timeout and still removes it', async () => {
    const started = Date.now();
    const result = await runner.run({ command: 'sleep 600', cwd: repo, timeoutMs: 200 });
    expect(result).toMatchObject({ exitCode: null, killedBy: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(engine.calls).toContain('POST /containers/:id/kill');
    expect(engine.calls.at(-1)).toBe('DELETE /containers/:id');
    expect(engine.containers.size).toBe(0);
  });

  it('never starts a container whose run was aborted before or while it was created', async () => {
    const aborted = await runner.run({
      command: 'sleep 600',
      cwd: repo,
      timeoutMs: 60_000,
      signal: AbortSignal.abort(),
    });
    expect(aborted).toMatchObject({ exitCode: null, killedBy: 'abort', output: '' });
    expect(engine.calls).toEqual(['POST /containers/create', 'DELETE /containers/:id']);

    // An abort the engine cannot act on yet (no container to kill) is applied once it exists.
    engine.calls.length = 0;
    let release = () => {};
    engine.beforeCreated = () => new Promise<void>((resolve) => (release = resolve));
    const controller = new AbortController();
    const running = runner.run({ command: 'sleep 600', cwd: repo, timeoutMs: 60_000, signal: controller.signal });
    await vi.waitFor(() => expect(engine.calls).toEqual(['POST /containers/create']));
    controller.abort();
    release();
    engine.beforeCreated = async () => {};
    await expect(running).resolves.toMatchObject({ exitCode: null, killedBy: 'abort' });
    expect(engine.calls).toEqual(['POST /containers/create', 'DELETE /containers/:id']);
    expect(engine.containers.size).toBe(0);
  });

  it('turns an engine failure (missing image) into a typed unavailable error', async () => {
    const other = new DockerRunner({ image: 'missing:latest', docker: new Docker({ socketPath: engine.socketPath }) });
    await expect(other.run({ command: 'true', cwd: repo, timeoutMs: 1_000 })).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/create failed.*No such image/),
    });
  });

  it('mounts a linked worktree with its mirror read-only at the host path its .git file names', async () => {
    const mirror = path.join(dir, 'mirror.git');
    execFileSync('git', ['init', '-q', '--bare', mirror]);
    const seed = path.join(dir, 'seed');
    execFileSync('git', ['clone', '-q', mirror, seed]);
    execFileSync('git', [
      '-C',
      seed,
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@t',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'x',
    ]);
    execFileSync('git', ['-C', seed, 'push', '-q', 'origin', 'HEAD:main']);
    const worktree = path.join(dir, 'worktree');
    execFileSync('git', ['-C', mirror, 'worktree', 'add', '-q', worktree, 'main']);
    await runner.run({ command: 'echo hi', cwd: worktree, timeoutMs: 5_000 });
    expect(engine.created.at(-1)?.HostConfig?.Mounts).toEqual([
      { Type: 'bind', Source: realpathSync(worktree), Target: '/workspace', ReadOnly: false },
      { Type: 'bind', Source: path.join(realpathSync(worktree), '.git'), Target: '/workspace/.git', ReadOnly: true },
      { Type: 'bind', Source: realpathSync(mirror), Target: realpathSync(mirror), ReadOnly: true },
    ]);
  });

  it('refuses to run as root', () => {
    expect(() => new DockerRunner({ image: 'x', user: '0:0' })).toThrow(/must not run as root/);
    expect(() => new DockerRunner({ image: 'x', user: 'root' })).toThrow(/must not run as root/);
  });

  it('is picked by createCommandRunner when SANDBOX=docker and the engine answers', async () => {
    const picked = await createCommandRunner({
      sandbox: 'docker',
      docker: { image: 'pullwright-sandbox:test', docker: new Docker({ socketPath: engine.socketPath }) },
    });
    expect(picked.name).toBe('docker');
    expect(engine.calls).toEqual(['GET /_ping']);
  });
});
