import { type CheckRun, type CheckRunner, failingTests } from '@pullwright/agent';
import { ValidationError } from '@pullwright/core';
import type { CommandEntry, RepoPolicyFile } from '@pullwright/policy';
import { type CommandKind, CommandPolicy, type CommandRunner } from '@pullwright/sandbox';
import { NestedGitDataError, removeNestedGitData, worktreeTreeHash } from '@pullwright/workspace';
import { defaultRegistries } from './default-registries.ts';

/** Scripts from package.json we treat as checks, in the order they usually run. */
const PACKAGE_SCRIPTS = ['typecheck', 'lint', 'test', 'build'] as const;

/** One command the pipeline runs for a repository, with the timeout it gets. */
export interface RepoCommand {
  command: string;
  timeoutMs: number;
}

/** The install command, with the hosts it may reach through the egress proxy. */
export interface InstallCommand extends RepoCommand {
  /** `.pullwright.yml`'s `network.allow`, else the registries of the repository's ecosystems. */
  allow: string[];
}

export interface RepoCommands {
  checks: Record<string, RepoCommand>;
  install?: InstallCommand;
  lintFile?: string;
}

interface PackageJson {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** Reads a file of the repository as of the commit the commands come from; undefined when absent. */
export type RepoFileReader = (file: string) => Promise<string | undefined>;

type Entry = CommandEntry;
const lineOf = (e: Entry) => (typeof e === 'string' ? e : e.command);

/**
 * How to install, check and lint a repository: `.pullwright.yml` when it says (the team's
 * explicit word), else what package.json implies. Read from the base commit, never from the
 * worktree: a change the model makes must not choose the checks it is judged by. Every
 * command passes the command policy here (servers and watchers are refused, whatever the
 * file says) and gets its timeout: the file's `timeout_ms`, else the policy's default for
 * its kind (install and test 180 s, others 60 s), never above `ceilingMs` (CHECK_TIMEOUT_MS).
 */
export async function detectRepoCommands(
  config: RepoPolicyFile | undefined,
  read: RepoFileReader,
  ceilingMs: number,
): Promise<RepoCommands> {
  const pkgText = await read('package.json');
  const pkg = pkgText === undefined ? undefined : (JSON.parse(pkgText) as PackageJson);
  const entries: Record<string, Entry> = {};
  if (config?.checks && Object.keys(config.checks).length > 0) Object.assign(entries, config.checks);
  else if (pkg?.scripts) {
    for (const name of PACKAGE_SCRIPTS)
      if (pkg.scripts[name]) entries[name] = name === 'test' ? 'npm test' : `npm run ${name}`;
  }
  const deps = { ...pkg?.dependencies, ...pkg?.devDependencies };
  const hasDeps = Object.keys(deps).length > 0;
  const install: Entry | undefined =
    config?.install ??
    (hasDeps && (await read('package-lock.json')) !== undefined
      ? 'npm ci --no-audit --no-fund'
      : hasDeps
        ? 'npm install --no-audit --no-fund'
        : undefined);
  const lintFile =
    config?.lint_file ??
    (deps.eslint
      ? 'npx --no-install eslint --no-color {file}'
      : deps['@biomejs/biome']
        ? 'npx --no-install biome lint --colors=off {file}'
        : undefined);

  const policy = new CommandPolicy({
    checks: [
      ...Object.entries(entries).map(([name, e]) => ({ name, command: lineOf(e), ...kindOf(name) })),
      ...(install ? [{ name: 'install', command: lineOf(install), kind: 'install' as const }] : []),
      ...(lintFile ? [{ name: 'lint_file', command: lintFile }] : []),
    ],
  });
  const decide = (name: string, e: Entry): RepoCommand => {
    let timeoutMs: number;
    try {
      timeoutMs = policy.check(lineOf(e)).timeoutMs;
    } catch (err) {
      throw new ValidationError(
        `${name === 'install' ? 'the install step' : `check "${name}"`} cannot run: ${(err as Error).message}`,
        [
          {
            field: `.pullwright.yml.${name === 'install' ? 'install' : `checks.${name}`}`,
            reason: (err as Error).message,
          },
        ],
      );
    }
    const own = typeof e === 'string' ? undefined : e.timeout_ms;
    return { command: lineOf(e), timeoutMs: Math.min(own ?? timeoutMs, ceilingMs) };
  };
  const checks = Object.fromEntries(Object.entries(entries).map(([name, e]) => [name, decide(name, e)]));
  if (lintFile) {
    try {
      policy.check(lintFile);
    } catch (err) {
      throw new ValidationError(`lint_file cannot run: ${(err as Error).message}`, [
        { field: '.pullwright.yml.lint_file', reason: (err as Error).message },
      ]);
    }
  }
  return {
    checks,
    ...(install
      ? { install: { ...decide('install', install), allow: config?.network?.allow ?? (await defaultRegistries(read)) } }
      : {}),
    ...(lintFile ? { lintFile } : {}),
  };
}

/** A check named `test` is the test suite whatever its command (180 s by default). */
function kindOf(name: string): { kind?: CommandKind } {
  return name === 'test' ? { kind: 'test' } : {};
}

/** The command lines alone: what a cached baseline is keyed by (with the timeouts). */
export function commandLines(commands: RepoCommands): Record<string, string> {
  return Object.fromEntries(Object.entries(commands.checks).map(([n, c]) => [n, `${c.command}\u0000${c.timeoutMs}`]));
}

/** How many check results a worker keeps: outputs are capped (64 KiB), so a few MiB at most. */
const CHECK_RESULTS_KEPT = 64;

/**
 * Check results by the tree they ran on, shared by the jobs of one worker: the baseline's run
 * on a base commit answers the model's first `run_check` on that untouched tree (the same job,
 * or the next operation on the same base), and the verification reuses the model's last run
 * of the same tree — so the suite runs once where once will do. Keyed by the repository, the
 * worktree's tree hash (tracked and untracked files), the install command the dependencies
 * came from, the check's name, command and timeout: a result is never served for another
 * repository, tree, lockfile (it is in the tree), install, command or timeout. Killed runs
 * are not kept (a timeout: load, not the tree, may have decided it; an abort: its job ended).
 * A run going on now is waited for, not started twice. The least recently used result goes first.
 */
export class CheckResultCache {
  readonly #runs = new Map<string, CheckRun>();
  /** Runs going on now, by key: a second asker waits for the first run instead of starting its own. */
  readonly #running = new Map<string, Promise<unknown>>();

  constructor(private readonly capacity = CHECK_RESULTS_KEPT) {}

  static key(repo: string, tree: string, name: string, spec: RepoCommand, install: RepoCommand | undefined): string {
    return JSON.stringify([repo, tree, install?.command ?? null, name, spec.command, spec.timeoutMs]);
  }

  /**
   * The result for `key`: a kept one, else the one running now once it ends, else `execute()`'s
   * (kept when it says so). A run that ended without a kept result is run again by the waiter.
   */
  async resolve(
    key: string,
    execute: () => Promise<{ run: CheckRun; keep: boolean }>,
  ): Promise<{ run: CheckRun; reused: boolean }> {
    const running = this.#running.get(key);
    if (running) await running;
    const kept = this.#get(key);
    if (kept) return { run: kept, reused: true };
    const attempt = execute();
    const settled = attempt.then(
      () => undefined,
      () => undefined,
    );
    this.#running.set(key, settled);
    try {
      const { run, keep } = await attempt;
      if (keep) this.#set(key, run);
      return { run, reused: false };
    } finally {
      if (this.#running.get(key) === settled) this.#running.delete(key);
    }
  }

  #get(key: string): CheckRun | undefined {
    const run = this.#runs.get(key);
    if (run) {
      this.#runs.delete(key);
      this.#runs.set(key, run);
    }
    return run;
  }

  #set(key: string, run: CheckRun): void {
    this.#runs.delete(key);
    this.#runs.set(key, run);
    for (const oldest of this.#runs.keys()) {
      if (this.#runs.size <= this.capacity) break;
      this.#runs.delete(oldest);
    }
  }
}

/** Runs a repository's checks through the sandbox runner; what the `run_check` tool and verify use. */
export class RepoChecks implements CheckRunner {
  constructor(
    private readonly root: string,
    private readonly commands: Pick<RepoCommands, 'checks' | 'install'>,
    private readonly runner: CommandRunner,
    private readonly options: {
      onRun?: (run: CheckRun) => Promise<void>;
      /** Results by tree, and the repository they belong to. */
      cache?: { results: CheckResultCache; repo: string };
    } = {},
  ) {}

  names(): string[] {
    return Object.keys(this.commands.checks);
  }

  async run(name: string, signal?: AbortSignal): Promise<CheckRun> {
    const spec = this.commands.checks[name];
    if (!spec) throw new ValidationError(`no check named ${name}`, [{ field: 'name', reason: 'unknown check' }]);
    const { cache, onRun } = this.options;
    let run: CheckRun;
    if (cache) {
      const key = CheckResultCache.key(
        cache.repo,
        await worktreeTreeHash(this.root),
        name,
        spec,
        this.commands.install,
      );
      const got = await cache.results.resolve(key, () => this.#execute(name, spec, signal));
      run = got.reused ? { ...got.run, reused: true } : got.run;
    } else run = (await this.#execute(name, spec, signal)).run;
    await onRun?.(run);
    return run;
  }

  /** One real run; `keep` is false for a run that was killed (a timeout: load may have decided it; an abort: its job ended). */
  async #execute(name: string, spec: RepoCommand, signal?: AbortSignal): Promise<{ run: CheckRun; keep: boolean }> {
    const result = await this.runner.run({
      command: spec.command,
      cwd: this.root,
      timeoutMs: spec.timeoutMs,
      ...(signal ? { signal } : {}),
    });
    // Git data a check leaves in the worktree (a test that `git init`s a fixture) is removed at
    // once: host git never enters it, nothing publishes it, and the model is told (issue 25).
    const removed = await removeNestedGitData(this.root);
    const refusal = removed.length ? `\n[pullwright] ${new NestedGitDataError(removed).message} It was removed.` : '';
    // Paths relative to the repository: shorter for the model, and equal across worktrees
    // (failure fingerprints and cached baselines compare them).
    const output = `${result.output}${refusal}`.replaceAll(`${this.root}/`, '');
    const run: CheckRun = {
      name,
      command: spec.command,
      passed: result.exitCode === 0,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      output,
      timedOut: result.killedBy === 'timeout',
      failingTests: result.exitCode === 0 ? [] : failingTests(output),
    };
    return { run, keep: result.killedBy === undefined };
  }
}
