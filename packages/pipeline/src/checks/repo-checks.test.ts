import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRepoPolicy } from '@pullwright/policy';
import type { CommandResult, CommandRunner, CommandSpec } from '@pullwright/sandbox';
import { describe, expect, it } from 'vitest';
import { CheckResultCache, detectRepoCommands, type InstallCommand, RepoChecks } from './repo-checks.ts';

const CEILING = 600_000;
const repoOf = (files: Record<string, string>) => (file: string) => Promise.resolve(files[file]);
/** The base commit as the prepare step reads it: `.pullwright.yml` parsed once, other files on request. */
const detect = async (files: Record<string, string>, ceiling = CEILING) => {
  const yml = files['.pullwright.yml'];
  return detectRepoCommands(yml === undefined ? undefined : parseRepoPolicy(yml), repoOf(files), ceiling);
};
const pkg = (scripts: Record<string, string>, devDependencies: Record<string, string> = {}) =>
  JSON.stringify({ scripts, devDependencies });

describe('detectRepoCommands', () => {
  it('gives install and test 180 s and other checks 60 s by default', async () => {
    const commands = await detect({
      'package.json': pkg({ lint: 'eslint .', test: 'vitest run' }, { eslint: '9' }),
      'package-lock.json': '{}',
    });
    expect(commands).toEqual({
      checks: {
        lint: { command: 'npm run lint', timeoutMs: 60_000 },
        test: { command: 'npm test', timeoutMs: 180_000 },
      },
      install: {
        command: 'npm ci --no-audit --no-fund',
        timeoutMs: 180_000,
        allow: ['registry.npmjs.org', 'registry.yarnpkg.com'],
      },
      lintFile: 'npx --no-install eslint --no-color {file}',
    });
  });

  it('takes timeout_ms per check from .pullwright.yml, never above CHECK_TIMEOUT_MS', async () => {
    const commands = await detect({
      '.pullwright.yml': [
        'checks:',
        '  test: { command: "make test", timeout_ms: 900000 }',
        '  lint: { command: "make lint", timeout_ms: 5000 }',
        '  build: make build',
        'install: { command: "make deps", timeout_ms: 240000 }',
      ].join('\n'),
    });
    expect(commands.checks).toEqual({
      test: { command: 'make test', timeoutMs: CEILING },
      lint: { command: 'make lint', timeoutMs: 5000 },
      build: { command: 'make build', timeoutMs: 60_000 },
    });
    expect(commands.install).toEqual({ command: 'make deps', timeoutMs: 240_000, allow: [] });
  });

  it("lets the install reach its ecosystems' registries, or exactly what network.allow says", async () => {
    const python = await detect({
      '.pullwright.yml': 'install: pip install -r requirements.txt',
      'requirements.txt': '',
    });
    expect(python.install?.allow).toEqual(['pypi.org', 'files.pythonhosted.org']);
    const own = await detect({
      '.pullwright.yml': 'install: npm ci\nnetwork: { allow: ["npm.acme.dev:8443", "*.pkg.github.com"] }',
      'package.json': pkg({}),
    });
    expect(own.install?.allow).toEqual(['npm.acme.dev:8443', '*.pkg.github.com']);
    expect(() => parseRepoPolicy('network: { allow: ["http://evil.test/"] }')).toThrow(/network\.allow/);
  });

  it.each([
    ['a check', 'checks: { test: "npm run dev" }', /check "test" cannot run: command refused \(long_running\)/],
    [
      'the install step',
      'checks: { test: "npm test" }\ninstall: "npx nodemon"',
      /the install step cannot run: .*"nodemon" does not exit/,
    ],
    [
      'lint_file',
      'checks: { test: "npm test" }\nlint_file: "npx eslint --watch {file}"',
      /lint_file cannot run: .*"--watch"/,
    ],
  ])('refuses a server or watcher as %s', async (_what, yml, reason) => {
    await expect(detect({ '.pullwright.yml': yml })).rejects.toThrow(reason);
  });

  it('names the field of a bad timeout', async () => {
    await expect(detect({ '.pullwright.yml': 'checks: { test: { command: "x", timeout_ms: 5 } }' })).rejects.toThrow(
      /\.pullwright\.yml\.checks\.test\.timeout_ms: Too small/,
    );
  });
});

describe('CheckResultCache', () => {
  /** Counts real runs; every run passes. */
  class CountingRunner implements CommandRunner {
    readonly name = 'counting';
    readonly sandboxed = true;
    readonly runs: string[] = [];
    async run(req: CommandSpec): Promise<CommandResult> {
      this.runs.push(req.command);
      return { exitCode: 0, output: 'ok', durationMs: 1 } as CommandResult;
    }
  }

  it('serves a check again only for the same tree, command and timeout', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-checkcache-'));
    try {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: dir });
      git('init', '-q');
      writeFileSync(path.join(dir, 'a.js'), 'one\n');
      writeFileSync(path.join(dir, '.gitignore'), 'node_modules/\n');
      git('add', '.');
      git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base');
      const runner = new CountingRunner();
      const cache = new CheckResultCache();
      const checks = (command: string, timeoutMs = 60_000) =>
        new RepoChecks(dir, { checks: { test: { command, timeoutMs } } }, runner, {
          cache: { results: cache, repo: 'acme/app' },
        });

      expect((await checks('npm test').run('test')).reused).toBeUndefined();
      expect((await checks('npm test').run('test')).reused).toBe(true);
      expect(runner.runs).toHaveLength(1);

      writeFileSync(path.join(dir, 'a.js'), 'two\n'); // a tracked file changed
      await checks('npm test').run('test');
      writeFileSync(path.join(dir, 'b.js'), 'new\n'); // an untracked file appeared
      await checks('npm test').run('test');
      await checks('npm run test:all').run('test'); // another command
      await checks('npm test', 5_000).run('test'); // another timeout
      expect(runner.runs).toHaveLength(5);

      mkdirSync(path.join(dir, 'node_modules')); // ignored files are not the tree
      writeFileSync(path.join(dir, 'node_modules', 'x.js'), 'ignored\n');
      expect((await checks('npm test').run('test')).reused).toBe(true);
      expect(runner.runs).toHaveLength(5);
      // The worktree's own index was not touched: b.js is still untracked.
      expect(execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' })).toContain('?? b.js');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is shared across worktrees of one tree, never across repositories or install commands, oldest out first', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'pw-checkcache-'));
    try {
      // Two worktrees of the same commit: the baseline's and the next operation's.
      const checkout = (name: string) => {
        const dir = path.join(root, name);
        mkdirSync(dir);
        const git = (...args: string[]) => execFileSync('git', args, { cwd: dir });
        git('init', '-q');
        writeFileSync(path.join(dir, 'a.js'), 'one\n');
        git('add', '.');
        git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base');
        return dir;
      };
      const [first, second] = [checkout('first'), checkout('second')];
      const runner = new CountingRunner();
      const results = new CheckResultCache(2);
      const test = { test: { command: 'npm test', timeoutMs: 60_000 } };
      const ci = { command: 'npm ci', timeoutMs: 180_000, allow: [] };
      const run = async (dir: string, install: InstallCommand, repo = 'acme/app') =>
        (await new RepoChecks(dir, { checks: test, install }, runner, { cache: { results, repo } }).run('test')).reused;

      expect(await run(first, ci)).toBeUndefined();
      expect(await run(second, ci)).toBe(true);
      expect(runner.runs).toHaveLength(1);
      // A fork with the same tree has results of its own; dependencies installed another way are another environment.
      expect(await run(second, ci, 'acme/fork')).toBeUndefined();
      expect(await run(second, { command: 'npm install', timeoutMs: 180_000, allow: [] })).toBeUndefined();
      expect(runner.runs).toHaveLength(3);
      // Capacity 2: the fork's and npm install's results are the newest; acme/app's npm ci result is gone.
      expect(await run(first, ci)).toBeUndefined();
      expect(runner.runs).toHaveLength(4);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('runs once for concurrent askers, and keeps no killed run (the waiter then runs it again)', async () => {
    const results = new CheckResultCache();
    const run = {
      name: 'test',
      command: 'npm test',
      passed: true,
      exitCode: 0,
      durationMs: 1,
      output: 'ok',
      timedOut: false,
      failingTests: [],
    };
    let executions = 0;
    let finish: (keep: boolean) => void = () => undefined;
    const execute = () => {
      executions++;
      return new Promise<{ run: typeof run; keep: boolean }>((resolve) => {
        finish = (keep) => resolve({ run, keep });
      });
    };
    const first = results.resolve('k', execute);
    const second = results.resolve('k', execute);
    finish(false); // killed: an abort or a timeout
    expect(await first).toEqual({ run, reused: false });
    await Promise.resolve();
    finish(true);
    expect(await second).toEqual({ run, reused: false });
    expect(executions).toBe(2);
    expect(await results.resolve('k', execute)).toEqual({ run, reused: true });
    expect(executions).toBe(2);

    const a = results.resolve('other', execute);
    const b = results.resolve('other', execute);
    finish(true);
    expect(await a).toEqual({ run, reused: false });
    expect(await b).toEqual({ run, reused: true });
    expect(executions).toBe(3);
  });
});
