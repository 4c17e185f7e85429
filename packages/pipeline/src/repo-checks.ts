import { type CheckRun, type CheckRunner, failingTests } from '@pullwright/agent';
import { ValidationError } from '@pullwright/core';
import type { CommandEntry, RepoPolicyFile } from '@pullwright/policy';
import { type CommandKind, CommandPolicy, type CommandRunner } from '@pullwright/sandbox';
import { worktreeTreeHash } from '@pullwright/workspace';

/** Scripts from package.json we treat as checks, in the order they usually run. */
const PACKAGE_SCRIPTS = ['typecheck', 'lint', 'test', 'build'] as const;

/** One command the pipeline runs for a repository, with the timeout it gets. */
export interface RepoCommand {
  command: string;
  timeoutMs: number;
}

export interface RepoCommands {
  checks: Record<string, RepoCommand>;
  install?: RepoCommand;
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
    ...(install ? { install: decide('install', install) } : {}),
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

/**
 * Check results of one job, by the tree they ran on: the model's own `run_check` and the
 * verification that follows it on the same tree run the suite once. Keyed by the worktree's
 * tree hash (tracked and untracked files), the check's name, command and timeout — a result
 * is never served for another tree, command or timeout. Timed-out runs are not kept: load,
 * not the tree, may have decided them.
 */
export class CheckResultCache {
  readonly #runs = new Map<string, CheckRun>();

  static key(tree: string, name: string, spec: RepoCommand): string {
    return JSON.stringify([tree, name, spec.command, spec.timeoutMs]);
  }

  get(key: string): CheckRun | undefined {
    return this.#runs.get(key);
  }

  set(key: string, run: CheckRun): void {
    if (!run.timedOut) this.#runs.set(key, run);
  }
}

/** Runs a repository's checks through the sandbox runner; what the `run_check` tool and verify use. */
export class RepoChecks implements CheckRunner {
  constructor(
    private readonly root: string,
    private readonly commands: Record<string, RepoCommand>,
    private readonly runner: CommandRunner,
    private readonly onRun?: (run: CheckRun) => Promise<void>,
    private readonly cache?: CheckResultCache,
  ) {}

  names(): string[] {
    return Object.keys(this.commands);
  }

  async run(name: string, signal?: AbortSignal): Promise<CheckRun> {
    const spec = this.commands[name];
    if (!spec) throw new ValidationError(`no check named ${name}`, [{ field: 'name', reason: 'unknown check' }]);
    const key = this.cache ? CheckResultCache.key(await worktreeTreeHash(this.root), name, spec) : undefined;
    const hit = key ? this.cache?.get(key) : undefined;
    if (hit) {
      const reused = { ...hit, reused: true };
      await this.onRun?.(reused);
      return reused;
    }
    const result = await this.runner.run({
      command: spec.command,
      cwd: this.root,
      timeoutMs: spec.timeoutMs,
      ...(signal ? { signal } : {}),
    });
    // Paths relative to the repository: shorter for the model, and equal across worktrees
    // (failure fingerprints and cached baselines compare them).
    const output = result.output.replaceAll(`${this.root}/`, '');
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
    if (key) this.cache?.set(key, run);
    await this.onRun?.(run);
    return run;
  }
}
