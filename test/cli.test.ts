import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = path.resolve(import.meta.dirname, '../apps/cli/bin/pullwright.js');
const run = (args: string[], input?: string) =>
  spawnSync('node', [BIN, ...args], { encoding: 'utf8', input: input ?? '', timeout: 30_000 });

describe('pullwright CLI', () => {
  it('scan exits 1 on a secret in a file and prints no secret', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-cli-'));
    const token = ['ghp', 'PLANTEDrepo0123456789abcdefghijklmno'].join('_');
    writeFileSync(path.join(dir, 'config.js'), `export const k = "${token}";\n`);
    writeFileSync(path.join(dir, 'clean.js'), 'export const k = process.env.TOKEN;\n');
    const r = run(['scan', dir]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('config.js:1: github-pat (ghp_…)');
    expect(r.stdout + r.stderr).not.toContain('PLANTEDrepo');
    expect(run(['scan', path.join(dir, 'clean.js')]).status).toBe(0);
  });

  it('scan reads a diff on stdin with --json', () => {
    const token = ['xoxb', '123456789012', '123456789012', 'abcdefghijklmnopqrstuvwx'].join('-');
    const diff = `diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+token=${token}\n`;
    const r = run(['scan', '--json'], diff);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).findings).toEqual([
      { ruleId: 'slack-bot-token', file: 'x', line: 1, preview: 'xoxb…' },
    ]);
  });

  it('reports a bad configuration once, without a stack trace', () => {
    const r = spawnSync('node', [BIN, 'api'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', PORT: 'eighty', REDIS_URL: 'nope' },
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PORT:');
    expect(r.stderr).toContain('REDIS_URL:');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it.each(['start', 'api', 'worker', 'demo', 'scan', 'repo', 'mcp', 'eval'])(
    '%s --help prints its usage on stdout and does not run',
    (command) => {
      for (const flag of ['--help', '-h']) {
        // Without REDIS_URL and API_TOKEN, `api` and `worker` would fail if they ran.
        const r = spawnSync('node', [BIN, command, flag], {
          encoding: 'utf8',
          env: { PATH: process.env.PATH ?? '' },
          timeout: 30_000,
        });
        expect(r.status).toBe(0);
        expect(r.stdout).toMatch(new RegExp(`^usage: pullwright ${command}`, 'i'));
        expect(r.stderr).toBe('');
      }
    },
  );

  it('--version prints the package version and starts nothing', () => {
    const { version } = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../package.json'), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-v']) {
      const r = spawnSync('node', [BIN, flag], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
      expect([r.status, r.stdout, r.stderr]).toEqual([0, `${version}\n`, '']);
    }
  });

  it.each([
    [['eval', 'nope'], 'unknown subcommand nope'],
    [['eval', 'mine', 'not a repo'], 'not a repo is not owner/name'],
    [['eval', 'mine', 'acme/kit', '--limit', '0'], '--limit must be a whole number of at least 1 (got 0)'],
    [['eval', 'run', 'tasks.jsonl', '--attempts', 'two'], '--attempts must be a whole number of at least 1 (got two)'],
    [
      ['eval', 'run', 'tasks.jsonl', '--replay', 'recordings'],
      '--replay answers the attempts from recordings in this process only',
    ],
    [['eval', 'run', 'tasks.jsonl', '--modle', 'x'], "Unknown option '--modle'"],
  ])('eval %j is refused before anything starts, with its usage', (args, reason) => {
    // REDIS_URL points nowhere: had the command started, it would fail on it instead.
    const r = spawnSync('node', [BIN, ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', REDIS_URL: 'redis://127.0.0.1:1' },
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(reason);
    expect(r.stderr).toContain('usage: pullwright eval mine');
  });

  it('prints the command list on stdout for --help', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('usage: pullwright <command>');
  });

  it('scan reads the repository .gitleaks.toml from the directory it runs in', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-cli-'));
    const token = ['ghp', 'PLANTEDfixture0123456789abcdefghijkl'].join('_');
    mkdirSync(path.join(dir, 'fixtures'));
    writeFileSync(path.join(dir, 'fixtures', 'a.txt'), `token = "${token}"\n`);
    writeFileSync(path.join(dir, 'src.txt'), `token = "${token}"\n`);
    writeFileSync(
      path.join(dir, '.gitleaks.toml'),
      "[extend]\nuseDefault = true\n[[allowlists]]\ndescription = \"test fixtures\"\npaths = ['''^fixtures/''']\n",
    );
    const r = spawnSync('node', [BIN, 'scan', 'fixtures', 'src.txt'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('src.txt:1: github-pat (ghp_…)\n');
  });

  it('scan --staged reads what the next commit holds, binary and -diff files included', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-cli-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' });
    const token = ['xoxb', '123456789012', '123456789012', 'Zq8xW2Lk9vAb3dEf6hIj9kLm'].join('-');
    git('init', '-q');
    writeFileSync(path.join(dir, '.gitattributes'), 'data/* -diff\n');
    mkdirSync(path.join(dir, 'data'));
    writeFileSync(path.join(dir, 'data', 'dump.txt'), `slack=${token}\n`);
    writeFileSync(
      path.join(dir, 'app.bin'),
      Buffer.concat([Buffer.from([0, 1, 0]), Buffer.from(token), Buffer.from([0])]),
    );
    writeFileSync(path.join(dir, 'clean.txt'), 'nothing\n');
    git('add', '.gitattributes', 'data', 'clean.txt');
    // Staged content counts, not the working tree: the staged dump has the token, the file on disk no longer does.
    writeFileSync(path.join(dir, 'data', 'dump.txt'), 'cleaned\n');
    const first = spawnSync('node', [BIN, 'scan', '--staged'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    expect(first.status).toBe(1);
    expect(first.stdout).toBe('data/dump.txt:1: slack-bot-token (xoxb…)\n');
    git('add', 'app.bin', 'data');
    const second = spawnSync('node', [BIN, 'scan', '--staged'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    expect(second.stdout).toBe('app.bin:1: slack-bot-token (xoxb…) [strings]\n');
    git('rm', '-q', '--cached', 'app.bin');
    const clean = spawnSync('node', [BIN, 'scan', '--staged'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    expect(clean.status).toBe(0);
    const outside = spawnSync('node', [BIN, 'scan', '--staged'], {
      cwd: os.tmpdir(),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(outside.status).toBe(2);
  });

  it('a worker configured for bubblewrap without bwrap on PATH exits non-zero naming the reason and the fix', () => {
    // PATH holds node and the other sandbox tools, but no bwrap.
    const bin = mkdtempSync(path.join(os.tmpdir(), 'pw-cli-path-'));
    for (const tool of [process.execPath, '/usr/bin/prlimit', '/usr/bin/choom', '/usr/bin/unshare', '/usr/bin/bash']) {
      symlinkSync(tool, path.join(bin, path.basename(tool)));
    }
    const data = mkdtempSync(path.join(os.tmpdir(), 'pw-cli-data-'));
    try {
      const r = spawnSync(process.execPath, [BIN, 'worker'], {
        encoding: 'utf8',
        env: {
          PATH: bin,
          SANDBOX: 'bubblewrap',
          REDIS_URL: 'redis://127.0.0.1:1',
          // Everything else the worker needs, so the sandbox is what stops it.
          VERIFICATION_KEY: 'verification-key-0123456789abcdef',
          DATA_DIR: data,
          LLM_PROVIDER: 'replay',
          REPLAY_FILE: path.resolve(import.meta.dirname, '../apps/cli/demo/debug-slugify.replay.json'),
        },
        timeout: 30_000,
      });
      expect(r.status).toBe(1);
      expect(r.stderr.trim()).toMatch(
        /^pullwright worker: SANDBOX=bubblewrap cannot start: bwrap not found on PATH\. Fix: install bubblewrap .* or SANDBOX=none to run repository code without a sandbox$/,
      );
    } finally {
      rmSync(bin, { recursive: true, force: true });
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('checks the configuration before the server’s modules load: the entry imports none of them', () => {
    const dist = path.resolve(import.meta.dirname, '../apps/cli/dist');
    const external = new Set<string>();
    const seen = new Set<string>();
    // The static import graph from main.js: what runs before `import()` loads a command's chunk.
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(path.join(dist, file), 'utf8');
      for (const [, spec = ''] of source.matchAll(/^import\s[^'"]*?["']([^"']+)["'];?$/gms)) {
        if (spec.startsWith('./')) visit(spec.slice(2));
        else external.add(spec);
      }
    };
    visit('main.js');
    const server = [...external].filter((s) =>
      /^(express|bullmq|ioredis|@octokit|openai|@anthropic-ai|dockerode)/.test(s),
    );
    expect(server).toEqual([]);
    expect(external).toContain('zod');
  });

  it('prints usage for an unknown command with exit 2', () => {
    const r = run(['frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('usage: pullwright <command>');
  });
});
