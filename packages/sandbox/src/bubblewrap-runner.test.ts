import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BubblewrapRunner } from './bubblewrap-runner.ts';
import type { CommandSpec } from './command-runner.ts';
import { createCommandRunner } from './create-command-runner.ts';

const hasBwrap = spawnSync('bwrap', ['--version']).status === 0;
const CANARY = `pw-canary-${randomBytes(12).toString('hex')}`;
const MiB = 1024 * 1024;

/** Processes on the host whose command line contains the marker (pgrep -f). */
function leftovers(marker: string): string {
  const result = spawnSync('pgrep', ['-af', marker], { encoding: 'utf8' });
  return result.stdout
    .split('\n')
    .filter((line) => line && !line.includes('pgrep'))
    .join('\n');
}

if (!hasBwrap) {
  it('falls back to the process runner when bwrap is not installed', async () => {
    const runner = await createCommandRunner({});
    expect(runner.name).toBe('process');
  });
} else {
  describe('BubblewrapRunner escape battery', () => {
    const runner = new BubblewrapRunner({ limits: { pids: 64, memoryBytes: 256 * MiB } });
    let repo: string;
    let outside: string;
    let dataDir: string;
    let server: net.Server;
    let serverPort: number;
    let connections = 0;
    const run = (command: string, extra: Partial<CommandSpec> = {}) =>
      runner.run({ command, cwd: repo, timeoutMs: 10_000, ...extra });

    beforeAll(async () => {
      process.env.PW_CANARY_SECRET = CANARY;
      repo = mkdtempSync(path.join(os.tmpdir(), 'pw-bwrap-repo-'));
      execFileSync('git', ['init', '-q', repo]);
      writeFileSync(path.join(repo, 'package.json'), '{"name":"victim","scripts":{"test":"true"}}\n');
      outside = mkdtempSync(path.join(os.tmpdir(), 'pw-bwrap-outside-'));
      writeFileSync(path.join(outside, 'canary.txt'), 'untouched\n');
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'pw-bwrap-data-'));
      writeFileSync(path.join(dataDir, 'app.pem'), `${CANARY}\n`);
      server = net.createServer((socket) => {
        connections++;
        // The sandboxed client exits right after connecting: a reset is expected.
        socket.on('error', () => {});
        socket.end('hello\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      serverPort = (server.address() as net.AddressInfo).port;
    });

    afterAll(async () => {
      delete process.env.PW_CANARY_SECRET;
      await new Promise((resolve) => server.close(resolve));
      for (const dir of [repo, outside, dataDir]) rmSync(dir, { recursive: true, force: true });
    });

    it('probes successfully on this host', async () => {
      expect(await runner.probe()).toEqual({ ok: true });
    });

    const connectScript = (port: number) =>
      `node -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>{console.log('CONNECTED');process.exit(0)}).on('error',(e)=>{console.log('refused',e.code);process.exit(3)})"`;

    it('cannot reach a TCP port on the host loopback (API stand-in or Redis)', async () => {
      const redisPort = Number(new URL(inject('redisUrl')).port);
      for (const port of [serverPort, redisPort]) {
        const result = await run(connectScript(port));
        expect(result.output).not.toContain('CONNECTED');
        expect(result.output).toMatch(/refused (ECONNREFUSED|ENETUNREACH)/);
        expect(result.exitCode).toBe(3);
      }
      expect(connections).toBe(0);
    });

    it('reaches the network only when the spec asks for it (the install step)', async () => {
      const result = await run(connectScript(serverPort), { network: true });
      expect(result.output).toContain('CONNECTED');
      expect(connections).toBe(1);
      connections = 0;
    });

    it("cannot read the worker's environment via env, /proc/1/environ or the worker's pid", async () => {
      const result = await run(
        `env; cat /proc/1/environ; cat /proc/*/environ; cat /proc/${process.pid}/environ; echo "[$PW_CANARY_SECRET]"`,
      );
      expect(result.output).not.toContain(CANARY);
      expect(result.output).toContain('[]');
      expect(result.output).toContain('HOME=/tmp/home');
    });

    it('cannot write outside the worktree, and sees the outside /tmp as empty', async () => {
      const canary = path.join(outside, 'canary.txt');
      const hostFile = `/usr/pw-escape-${randomBytes(4).toString('hex')}`;
      const result = await run(`ls ${outside}; echo pwned > ${canary}; rm -f ${canary}; touch ${hostFile}; echo done`);
      expect(result.output).toMatch(/Read-only file system/);
      expect(readFileSync(canary, 'utf8')).toBe('untouched\n');
      expect(existsSync(hostFile)).toBe(false);
    });

    it('writes inside the worktree but not into .git (hooks, config)', async () => {
      const result = await run(
        'echo ok > built.txt; mkdir -p .git/hooks; echo "#!/bin/sh" > .git/hooks/pre-commit; echo x >> .git/config; echo done',
      );
      expect(readFileSync(path.join(repo, 'built.txt'), 'utf8')).toBe('ok\n');
      expect(result.output).toMatch(/\.git\/hooks\/pre-commit: Read-only file system/);
      expect(existsSync(path.join(repo, '.git/hooks/pre-commit'))).toBe(false);
      expect(readFileSync(path.join(repo, '.git/config'), 'utf8')).not.toMatch(/^x$/m);
    });

    it('cannot read hidden directories (home, configured data dir with keys)', async () => {
      const hiding = new BubblewrapRunner({ hide: [dataDir] });
      const home = os.homedir();
      const result = await hiding.run({
        command: `cat ${dataDir}/app.pem; ls -A ${home}`,
        cwd: repo,
        timeoutMs: 10_000,
      });
      expect(result.output).not.toContain(CANARY);
      expect(result.output).toMatch(/No such file/);
      // Only directories mounted back for PATH tools (~/.cargo/bin, ~/.nvm/...) may show.
      const toolDirs = (process.env.PATH ?? '')
        .split(':')
        .filter((p) => p.startsWith(`${home}/`))
        .map((p) => p.slice(home.length + 1).split('/')[0]);
      const visible = result.output.trim().split('\n').slice(1);
      for (const name of visible) expect(toolDirs).toContain(name);
      expect(readdirSync(home).length).toBeGreaterThan(visible.length);
    });

    it('bounds a fork bomb by the pids limit and leaves nothing behind', async () => {
      const marker = `30.${Date.now()}${randomBytes(3).readUIntBE(0, 3)}`;
      const result = await run(`i=0; while [ $i -lt 1000 ]; do sleep ${marker} & i=$((i+1)); done; echo spawned $i`);
      expect(result.output).not.toContain('spawned 1000');
      expect(result.output).toMatch(/fork|Resource temporarily unavailable/i);
      expect(result.durationMs).toBeLessThan(5_000);
      expect(leftovers(`sleep ${marker}`)).toBe('');
    });

    it('stops a memory hog at the memory limit', async () => {
      const result = await run(`node -e "const a=[]; for (;;) a.push(Buffer.alloc(16 << 20, 1))"`);
      expect(result.exitCode).not.toBe(0);
      expect(result.killedBy).toBeUndefined();
      expect(result.durationMs).toBeLessThan(8_000);
      // The limit stops the runaway, not ordinary work: 96 MB still fits.
      const modest = await run(
        `node -e "const a=[]; for (let i=0;i<6;i++) a.push(Buffer.alloc(16 << 20, 1)); console.log('ok', a.length)"`,
      );
      expect(modest).toMatchObject({ exitCode: 0, output: 'ok 6\n' });
    });

    it('caps the output it keeps', async () => {
      const result = await run('yes pullwright | head -c 1000000', { maxOutputBytes: 200 });
      expect(result.truncated).toBe(true);
      expect(result.output.length).toBeLessThan(300);
      expect(result.output).toMatch(/999800 characters omitted/);
    });

    it('kills the whole tree at the timeout, including a setsid-detached sleeper', async () => {
      const marker = `600.${Date.now()}${randomBytes(3).readUIntBE(0, 3)}`;
      const started = Date.now();
      const result = await run(`setsid sleep ${marker} & nohup sleep ${marker} & sleep ${marker}`, { timeoutMs: 400 });
      expect(result.killedBy).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(leftovers(`sleep ${marker}`)).toBe('');
    });

    it('leaves the worker healthy and no per-command cgroup behind', async () => {
      const result = await run('echo still fine');
      expect(result).toMatchObject({ exitCode: 0, output: 'still fine\n' });
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(serverPort, '127.0.0.1');
        socket.setEncoding('utf8').on('data', resolve).on('error', reject);
      });
      expect(reply).toBe('hello\n');
      connections = 0;
      const stale = spawnSync('find', ['/sys/fs/cgroup', '-maxdepth', '4', '-name', `pullwright-${process.pid}-*`], {
        encoding: 'utf8',
      });
      expect(stale.stdout).toBe('');
    });

    it('refuses a cwd outside its root and a root that would expose the host', () => {
      const nested = path.join(repo, 'pkg');
      mkdirSync(nested, { recursive: true });
      expect(() => runner.bwrapArgs({ command: 'true', cwd: outside, root: repo, timeoutMs: 1 })).toThrow(
        /inside its root/,
      );
      expect(runner.bwrapArgs({ command: 'true', cwd: nested, root: repo, timeoutMs: 1 })).toContain(nested);
      for (const root of ['/', os.tmpdir(), os.homedir()]) {
        expect(() => runner.bwrapArgs({ command: 'true', cwd: root, timeoutMs: 1 })).toThrow(/must be a worktree/);
      }
    });
  });
}
