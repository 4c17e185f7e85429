import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BubblewrapRunner } from './bubblewrap-runner.ts';
import type { CommandSpec } from './command-runner.ts';
import { EgressProxy, type RefusedConnection } from './egress-proxy.ts';
import { leftoverProcesses } from './leftover-processes.ts';

const CANARY = `pw-canary-${randomBytes(12).toString('hex')}`;
const MiB = 1024 * 1024;
const EGRESS_PROBE = path.join(import.meta.dirname, 'testing', 'egress-probe.cjs');

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
    await expect(runner.probe()).resolves.toBeUndefined();
  });

  it('runs as an unprivileged uid in a user namespace, with a generated account list', async () => {
    const result = await run('id -u; id -g; whoami; cat /etc/passwd');
    const [uid, gid, name, ...passwd] = result.output.trim().split('\n');
    expect([uid, gid, name]).toEqual(['1000', '1000', 'sandbox']);
    expect(passwd.map((line) => line.split(':')[0])).toEqual(['root', 'sandbox', 'nobody']);
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

  it('reaches the network only through the egress proxy it is given (the install step)', async () => {
    const redisPort = Number(new URL(inject('redisUrl')).port);
    const refused: RefusedConnection[] = [];
    const proxy = await EgressProxy.start(
      { allow: [], trusted: [`127.0.0.1:${serverPort}`], servicePorts: [] },
      { onRefused: (r) => refused.push(r) },
    );
    copyFileSync(EGRESS_PROBE, path.join(repo, 'egress-probe.cjs'));
    try {
      const result = await run(
        `node egress-probe.cjs direct:127.0.0.1:${serverPort} connect:127.0.0.1:${redisPort} connect:127.0.0.1:${serverPort}`,
        { egress: { socketDir: proxy.socketDir } },
      );
      expect(result.output.trim().split('\n')).toEqual([
        `direct 127.0.0.1:${serverPort} ECONNREFUSED`,
        `connect 127.0.0.1:${redisPort} 403`,
        `connect 127.0.0.1:${serverPort} 200`,
      ]);
      expect(refused).toEqual([{ host: '127.0.0.1', port: redisPort, reason: 'not_allowed' }]);
      expect(connections).toBe(1);
    } finally {
      await proxy.close();
      rmSync(path.join(repo, 'egress-probe.cjs'));
      connections = 0;
    }
  });

  // Escape attempts below run as one list with `set +e`: each attempt is expected to fail, and
  // the shell (errexit, pipefail like CI) would otherwise stop at the first.
  it("cannot read the worker's environment via env, /proc/1/environ or the worker's pid", async () => {
    const result = await run(
      `set +e; env; cat /proc/1/environ; cat /proc/*/environ; cat /proc/${process.pid}/environ; echo "[$PW_CANARY_SECRET]"`,
    );
    expect(result.output).not.toContain(CANARY);
    expect(result.output).toContain('[]');
    expect(result.output).toContain('HOME=/tmp/home');
  });

  it('sees exactly the environment README names: PATH, HOME, LANG, LC_ALL, TZ, TERM, CI, NO_COLOR', async () => {
    const result = await run('env | cut -d= -f1 | sort');
    // bash sets PWD, SHLVL and _ itself; npm's update notifier is switched off for every command.
    const own = new Set(['PWD', 'SHLVL', '_', 'OLDPWD', 'npm_config_update_notifier']);
    const names = result.output
      .trim()
      .split('\n')
      .filter((n) => !own.has(n));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names)
      expect(['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TERM', 'CI', 'NO_COLOR']).toContain(name);
  });

  it("sees only README's /etc entries, plus the generated passwd and group", async () => {
    const result = await run('ls -A /etc');
    const allowed = [
      ...['alternatives', 'ssl', 'ca-certificates', 'ca-certificates.conf', 'hosts', 'host.conf', 'nsswitch.conf'],
      ...['gai.conf', 'ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'localtime', 'timezone', 'mime.types', 'magic'],
      ...['protocols', 'services', 'os-release', 'debian_version', 'terminfo', 'passwd', 'group'],
    ];
    const entries = result.output.trim().split('\n');
    expect(entries).toEqual(expect.arrayContaining(['passwd', 'group', 'hosts']));
    for (const entry of entries) expect(allowed).toContain(entry);
  });

  it('cannot write outside the worktree, and sees the outside /tmp as empty', async () => {
    const canary = path.join(outside, 'canary.txt');
    const hostFile = `/usr/pw-escape-${randomBytes(4).toString('hex')}`;
    const result = await run(
      `set +e; ls ${outside}; echo pwned > ${canary}; rm -f ${canary}; touch ${hostFile}; echo done`,
    );
    expect(result.output).toMatch(/Read-only file system/);
    expect(readFileSync(canary, 'utf8')).toBe('untouched\n');
    expect(existsSync(hostFile)).toBe(false);
  });

  it('writes inside the worktree but not into .git (hooks, config)', async () => {
    const result = await run(
      'set +e; echo ok > built.txt; mkdir -p .git/hooks; echo "#!/bin/sh" > .git/hooks/pre-commit; echo x >> .git/config; echo done',
    );
    expect(readFileSync(path.join(repo, 'built.txt'), 'utf8')).toBe('ok\n');
    expect(result.output).toMatch(/\.git\/hooks\/pre-commit: Read-only file system/);
    expect(existsSync(path.join(repo, '.git/hooks/pre-commit'))).toBe(false);
    expect(readFileSync(path.join(repo, '.git/config'), 'utf8')).not.toMatch(/^x$/m);
    expect(result.output).toMatch(/\.git\/config: Read-only file system\ndone\n$/);
  });

  it.each([
    ['node -e "process.exit(1)" | cat', false],
    ['true | cat', true],
    ['false; echo after', false],
    ['exit 3', false],
    ['npm-test-that-does-not-exist 2>&1 | tee out.log', false],
    ['false || echo handled', true],
  ])('fails like a CI shell (errexit, pipefail): %s passes: %s', async (command, passes) => {
    const result = await run(command);
    expect(result.exitCode === 0).toBe(passes);
    expect(result.output).not.toContain('after');
  });

  it('bounds a fork bomb by the pids limit and leaves nothing behind', async () => {
    const marker = `30.${Date.now()}${randomBytes(3).readUIntBE(0, 3)}`;
    const result = await run(
      // dash, not bash: bash retries a failed fork for seconds; the limit is the sandbox's, not the shell's.
      `exec sh -c 'i=0; while [ $i -lt 1000 ]; do sleep ${marker} & i=$((i+1)); done; echo spawned $i'`,
    );
    expect(result.output).not.toContain('spawned 1000');
    expect(result.output).toMatch(/fork|Resource temporarily unavailable/i);
    expect(result.durationMs).toBeLessThan(5_000);
    expect(leftoverProcesses(`sleep ${marker}`)).toBe('');
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

  it.each([
    ['one file', 'dd if=/dev/zero of=big.bin bs=1M count=512 status=none; echo finished', 'a file reached 64 MiB'],
    [
      'one file, from node',
      `node -e "require('fs').writeFileSync('big.bin', Buffer.alloc(512 << 20))"; echo finished`,
      'a file reached 64 MiB',
    ],
    [
      'many files',
      'for i in $(seq 1 64); do dd if=/dev/zero of=part-$i.bin bs=1M count=8 status=none; done; echo finished',
      'killed: the command wrote more than 64 MiB to disk',
    ],
  ])('fails a command that writes past the disk limit (%s), naming the limit', async (_shape, command, reason) => {
    const limited = new BubblewrapRunner({ limits: { diskBytes: 64 * MiB } });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-bwrap-disk-'));
    try {
      // How fast this disk takes writes now: the meter looks every 250 ms, so what gets past
      // the limit is what one or two intervals let through at this rate (fast when the machine
      // is quiet, slow under load).
      const started = performance.now();
      execFileSync('dd', ['if=/dev/zero', `of=${path.join(dir, 'probe.bin')}`, 'bs=1M', 'count=32', 'status=none']);
      const bytesPerMs = (32 * MiB) / Math.max(1, performance.now() - started);
      rmSync(path.join(dir, 'probe.bin'));
      const result = await limited.run({ command, cwd: dir, timeoutMs: 60_000 });
      expect(result.exitCode).not.toBe(0);
      expect(result.output).not.toContain('finished');
      expect(result.output).toContain(`[pullwright] ${reason}`);
      expect(result.output).toContain("the sandbox's disk limit");
      // The worker's disk holds the limit and what two measuring intervals let through, never all 512 MiB.
      const used = Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
      expect(used).toBeLessThan(Math.min(512 * MiB, 64 * MiB + 8 * MiB + 2 * 250 * bytesPerMs));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does not count what a command writes to its private /tmp (a tmpfs bounded by its size)', async () => {
    const limited = new BubblewrapRunner({ limits: { diskBytes: 64 * MiB } });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-bwrap-disk-'));
    try {
      const result = await limited.run({
        // 3 × 48 MiB: more than the limit in all, each file under it.
        command:
          'for i in 1 2 3; do dd if=/dev/zero of=/tmp/scratch bs=1M count=48 status=none; rm /tmp/scratch; done; echo ok',
        cwd: dir,
        timeoutMs: 60_000,
      });
      expect(result).toMatchObject({ exitCode: 0, output: 'ok\n' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is the first the kernel kills when memory runs out (oom_score_adj 1000), wherever it runs', async () => {
    const result = await run('cat /proc/self/oom_score_adj');
    expect(result).toMatchObject({ exitCode: 0, output: '1000\n' });
  });

  it('caps the output it keeps', async () => {
    const result = await run('yes pullwright | head -c 1000000', { maxOutputBytes: 200 });
    expect(result.truncated).toBe(true);
    expect(result.output.length).toBeLessThan(300);
    expect(result.output).toMatch(/999800 characters omitted/);
  });

  it('kills the whole tree at the timeout, including a setsid child that ignores SIGTERM and holds the pipe', async () => {
    const marker = `600.${Date.now()}${randomBytes(3).readUIntBE(0, 3)}`;
    const timeoutMs = 400;
    const started = Date.now();
    const result = await run(
      `setsid sh -c 'trap "" TERM; exec sleep ${marker}' & nohup sleep ${marker} & sleep ${marker}`,
      { timeoutMs },
    );
    expect(result.killedBy).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(timeoutMs + 2_000);
    expect(leftoverProcesses(`sleep ${marker}`)).toBe('');
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

  it('keeps a long-running command talking over its pipes, with a read-only worktree, until stopped', async () => {
    const marker = `700.${Date.now()}${randomBytes(3).readUIntBE(0, 3)}`;
    const started = await runner.start({
      command: `(sleep ${marker} &); echo ready; while read -r line; do echo "got $line"; echo x > "$line" 2>&1 || echo "refused $line"; done`,
      cwd: repo,
      timeoutMs: 60_000,
      readOnlyRoot: true,
    });
    const lines: string[] = [];
    started.stdout.setEncoding('utf8').on('data', (d: string) => lines.push(...d.split('\n').filter(Boolean)));
    const next = (n: number) => expect.poll(() => lines.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(n);
    await next(1);
    started.stdin.write(`${path.join(repo, 'written.txt')}\n`);
    started.stdin.write(`${path.join(outside, 'written.txt')}\n`);
    await next(5);
    expect(lines).toEqual([
      'ready',
      `got ${path.join(repo, 'written.txt')}`,
      `refused ${path.join(repo, 'written.txt')}`,
      `got ${path.join(outside, 'written.txt')}`,
      `refused ${path.join(outside, 'written.txt')}`,
    ]);
    expect(existsSync(path.join(repo, 'written.txt'))).toBe(false);
    expect(existsSync(path.join(outside, 'written.txt'))).toBe(false);
    await started.stop();
    await expect(started.exited).resolves.toEqual({ exitCode: null, killedBy: 'stop' });
    expect(leftoverProcesses(`sleep ${marker}`)).toBe('');
  });

  it('ends a long-running command at the end of its life (timeoutMs)', async () => {
    const started = await runner.start({ command: 'sleep 600', cwd: repo, timeoutMs: 300 });
    await expect(started.exited).resolves.toEqual({ exitCode: null, killedBy: 'timeout' });
  });

  it('reports how a long-running command ended on its own, with what it wrote on stderr', async () => {
    const started = await runner.start({
      command: 'echo "cannot start: no config" >&2; exit 3',
      cwd: repo,
      timeoutMs: 60_000,
    });
    await expect(started.exited).resolves.toEqual({ exitCode: 3 });
    expect(started.stderr()).toContain('cannot start: no config');
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

describe('BubblewrapRunner shows nothing of the host but the toolchain and its worktree', () => {
  const base = mkdtempSync(path.join(os.tmpdir(), 'pw-bwrap-host-'));
  const dataDir = path.join(base, 'data');
  const workspace = path.join(dataDir, 'workspace');
  const mirror = path.join(workspace, 'mirrors', 'acme', 'app.git');
  const worktree = path.join(workspace, 'worktrees', 'op-a');
  const otherWorktree = path.join(workspace, 'worktrees', 'op-b');
  const keyOutside = path.join(base, 'keys', 'app.pem');
  // A key given by path under a directory the sandbox shows (the toolchain tree): hidden by name.
  const keyInToolchain = `/usr/local/etc/pw-test-key-${randomBytes(6).toString('hex')}.pem`;
  const appDir = process.cwd();
  let runner: BubblewrapRunner;
  const run = (command: string, extra: Partial<CommandSpec> = {}) =>
    runner.run({ command, cwd: worktree, timeoutMs: 10_000, ...extra });

  beforeAll(() => {
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
    git('init', '-q', '--bare', '--initial-branch=main', mirror);
    const seed = path.join(base, 'seed');
    git('init', '-q', '--initial-branch=main', seed);
    writeFileSync(path.join(seed, 'README.md'), 'hello\n');
    git('-C', seed, 'add', '.');
    git('-C', seed, 'commit', '-q', '-m', 'first');
    git('-C', seed, 'push', '-q', mirror, 'main');
    git('-C', mirror, 'worktree', 'add', '-q', worktree, 'main');
    git('-C', mirror, 'worktree', 'add', '-q', '--detach', otherWorktree, 'main');
    writeFileSync(path.join(otherWorktree, 'secret.txt'), `${CANARY}\n`);
    mkdirSync(path.dirname(keyOutside));
    writeFileSync(keyOutside, `${CANARY}\n`);
    writeFileSync(keyInToolchain, `${CANARY}\n`);
    runner = new BubblewrapRunner({ hide: [dataDir, workspace, keyOutside, keyInToolchain] });
  });

  afterAll(() => {
    rmSync(base, { recursive: true, force: true });
    rmSync(keyInToolchain, { force: true });
  });

  it.each([
    ['/etc/shadow', 'cat /etc/shadow'],
    ['/etc/gshadow', 'cat /etc/gshadow'],
    ['/etc/ssh', 'ls /etc/ssh'],
    ['/etc/ssl/private', 'ls /etc/ssl/private'],
    ['/root', 'ls -A /root'],
    ['/home', 'ls /home'],
    ['/run (sockets)', 'ls /run'],
    ['/var', 'ls -A /var'],
    ['/opt', 'ls -A /opt'],
    ['/srv', 'ls -A /srv'],
    ['/etc/resolv.conf', 'cat /etc/resolv.conf'],
    ['/etc/npmrc', 'cat /etc/npmrc'],
    ['another worktree', `cat ${path.join(otherWorktree, 'secret.txt')}`],
    ['the data directory', `ls ${dataDir}/keys ${base}/keys`],
    ['the application directory', `ls ${appDir}/package.json`],
    ['a key file given by path', `cat ${keyOutside}`],
    ['a key file inside the toolchain tree', `cat ${keyInToolchain}`],
  ])('cannot read %s', async (_what, command) => {
    const result = await run(`${command}; echo "exit=$?"`);
    expect(result.output).not.toContain(CANARY);
    expect(result.output).toMatch(/No such file or directory|Permission denied/);
    expect(result.output).not.toMatch(/exit=0/);
  });

  it('cannot create a user namespace inside, and its /tmp is bounded', async () => {
    const result = await run('set +e; unshare --user true; echo "userns=$?"; df -k /tmp | tail -1');
    expect(result.output).toMatch(/userns=[1-9]/);
    const sizeKb = Number(result.output.trim().split('\n').at(-1)?.trim().split(/\s+/)[1]);
    expect(sizeKb).toBe(512 * 1024);
  });

  it('sees its own worktree read-write, the toolchain, and no network', async () => {
    const result = await run(
      `set +e; cat README.md && echo built > out.txt && node -e "console.log('node', process.version)" && ls /sys 2>&1; cat /proc/net/dev | tail -n +3 | cut -d: -f1`,
    );
    expect(result.output).toContain('hello\n');
    expect(result.output).toMatch(/node v\d+/);
    expect(result.output).toMatch(/ls: cannot access '\/sys'/);
    expect(result.output.trim().split('\n').at(-1)?.trim()).toBe('lo');
    expect(readFileSync(path.join(worktree, 'out.txt'), 'utf8')).toBe('built\n');
  });

  it('lets git read the worktree and its mirror but write neither .git nor the mirror', async () => {
    const result = await run(
      'set +e; git log --format=%s; git status --short; echo x > .git; git -c user.name=m -c user.email=m@m commit -q --allow-empty -m evil; git update-ref refs/heads/evil HEAD; echo done',
    );
    expect(result.output).toMatch(/^first$/m);
    expect(result.output).toMatch(/Read-only file system/);
    expect(result.output).toContain('done');
    const refs = execFileSync('git', ['-C', mirror, 'for-each-ref', '--format=%(refname)'], { encoding: 'utf8' });
    expect(refs.trim().split('\n')).toEqual(['refs/heads/main']);
    expect(execFileSync('git', ['-C', worktree, 'log', '--format=%s'], { encoding: 'utf8' })).toBe('first\n');
  });
});

describe('BubblewrapRunner dependency layers', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pw-bwrap-layer-'));
    for (const d of ['root/node_modules', 'lower/dep', 'upper', 'work'])
      mkdirSync(path.join(dir, d), { recursive: true });
    writeFileSync(path.join(dir, 'lower', 'dep', 'index.js'), 'cached\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const layer = () => ({
    at: path.join(dir, 'root', 'node_modules'),
    lower: path.join(dir, 'lower'),
    upper: path.join(dir, 'upper'),
    work: path.join(dir, 'work'),
  });

  it('mounts the cached tree read-only below and the worktree’s own directory above', async () => {
    const runner = new BubblewrapRunner();
    expect(await runner.layersDependencies()).toBe(true);
    const r = await runner.run({
      command: 'cat node_modules/dep/index.js; echo mine > node_modules/dep/index.js; id -u',
      cwd: path.join(dir, 'root'),
      timeoutMs: 10_000,
      dependencies: layer(),
    });
    expect(r.output).toBe('cached\n1000\n');
    expect(readFileSync(path.join(dir, 'lower', 'dep', 'index.js'), 'utf8')).toBe('cached\n');
    expect(readFileSync(path.join(dir, 'upper', 'dep', 'index.js'), 'utf8')).toBe('mine\n');
    // On the host the worktree's node_modules is only the mount point.
    expect(existsSync(path.join(dir, 'root', 'node_modules', 'dep'))).toBe(false);
  });

  it('refuses a layer outside the root, and says no to layers when they are turned off', async () => {
    const runner = new BubblewrapRunner();
    await expect(
      runner.run({
        command: 'true',
        cwd: path.join(dir, 'root'),
        timeoutMs: 10_000,
        dependencies: { ...layer(), at: dir },
      }),
    ).rejects.toThrow('a dependency layer must be a directory inside the sandbox root');
    expect(await new BubblewrapRunner({ dependencyLayers: false }).layersDependencies()).toBe(false);
  });
});
