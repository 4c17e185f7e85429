import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type CheckRun, type CheckRunner, failingTests } from '@pullwright/agent';
import { ValidationError } from '@pullwright/core';
import { readRepoPolicy } from '@pullwright/policy';
import { CommandPolicy, type CommandRunner } from '@pullwright/sandbox';

/** Scripts from package.json we treat as checks, in the order they usually run. */
const PACKAGE_SCRIPTS = ['typecheck', 'lint', 'test', 'build'] as const;

export interface RepoCommands {
  checks: Record<string, string>;
  install?: string;
  lintFile?: string;
}

interface PackageJson {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

function readPackageJson(root: string): PackageJson | undefined {
  const file = path.join(root, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PackageJson) : undefined;
}

/**
 * How to install, check and lint a repository: `.pullwright.yml` when it says (the team's
 * explicit word), else what package.json implies.
 */
export function detectRepoCommands(root: string): RepoCommands {
  const config = readRepoPolicy(root) ?? {};
  const pkg = readPackageJson(root);
  const checks: Record<string, string> = {};
  if (config.checks && Object.keys(config.checks).length > 0) Object.assign(checks, config.checks);
  else if (pkg?.scripts) {
    for (const name of PACKAGE_SCRIPTS)
      if (pkg.scripts[name]) checks[name] = name === 'test' ? 'npm test' : `npm run ${name}`;
  }
  const hasDeps = Object.keys({ ...pkg?.dependencies, ...pkg?.devDependencies }).length > 0;
  const install =
    config.install ??
    (hasDeps && existsSync(path.join(root, 'package-lock.json'))
      ? 'npm ci --no-audit --no-fund'
      : hasDeps
        ? 'npm install --no-audit --no-fund'
        : undefined);
  const devDeps = { ...pkg?.dependencies, ...pkg?.devDependencies };
  const lintFile =
    config.lint_file ??
    (devDeps.eslint
      ? 'npx --no-install eslint --no-color {file}'
      : devDeps['@biomejs/biome']
        ? 'npx --no-install biome lint --colors=off {file}'
        : undefined);
  return { checks, ...(install ? { install } : {}), ...(lintFile ? { lintFile } : {}) };
}

/**
 * Why one of the repository's checks may not run, or undefined when all may. Servers and
 * watchers never run, even when the repository's config names them as checks.
 */
export function refusedCheck(commands: RepoCommands): string | undefined {
  const entries = Object.entries(commands.checks);
  const policy = new CommandPolicy({
    checks: [...entries, ...(commands.install ? [['install', commands.install] as const] : [])].map(
      ([name, command]) => ({ name, command }),
    ),
  });
  for (const [name, command] of entries) {
    try {
      policy.check(command);
    } catch (err) {
      return `check "${name}" cannot run: ${(err as Error).message}`;
    }
  }
  return undefined;
}

/** Runs a repository's checks through the sandbox runner; what the `run_check` tool and verify use. */
export class RepoChecks implements CheckRunner {
  constructor(
    private readonly root: string,
    private readonly commands: Record<string, string>,
    private readonly runner: CommandRunner,
    private readonly timeoutMs: number,
    private readonly onRun?: (run: CheckRun) => Promise<void>,
  ) {}

  names(): string[] {
    return Object.keys(this.commands);
  }

  async run(name: string, signal?: AbortSignal): Promise<CheckRun> {
    const command = this.commands[name];
    if (!command) throw new ValidationError(`no check named ${name}`, [{ field: 'name', reason: 'unknown check' }]);
    const result = await this.runner.run({
      command,
      cwd: this.root,
      timeoutMs: this.timeoutMs,
      ...(signal ? { signal } : {}),
    });
    // Paths relative to the repository: shorter for the model, and equal across worktrees
    // (failure fingerprints and cached baselines compare them).
    const output = result.output.replaceAll(`${this.root}/`, '');
    const run: CheckRun = {
      name,
      command,
      passed: result.exitCode === 0,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      output,
      timedOut: result.killedBy === 'timeout',
      failingTests: result.exitCode === 0 ? [] : failingTests(output),
    };
    await this.onRun?.(run);
    return run;
  }
}
