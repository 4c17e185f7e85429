import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type CheckRun, type CheckRunner, failingTests } from '@pullwright/agent';
import { ValidationError } from '@pullwright/core';
import type { CommandRunner } from '@pullwright/sandbox';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

const CHECK_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** The part of `.pullwright.yml` the pipeline reads: which commands check a change. */
const RepoConfigFile = z.object({
  checks: z
    .record(z.string().regex(CHECK_NAME, 'check names are lower-case words'), z.string().min(1).max(500))
    .optional(),
});

/** Scripts from package.json we treat as checks, in the order they usually run. */
const PACKAGE_SCRIPTS = ['typecheck', 'lint', 'test', 'build'] as const;

/**
 * Which checks a repository has: `.pullwright.yml` `checks:` when present (it is the team's
 * explicit word), else the matching scripts of package.json.
 */
export function detectChecks(root: string): Record<string, string> {
  const configFile = path.join(root, '.pullwright.yml');
  if (existsSync(configFile)) {
    const parsed = RepoConfigFile.safeParse(parseYaml(readFileSync(configFile, 'utf8')) ?? {});
    if (!parsed.success) {
      throw new ValidationError(
        '.pullwright.yml is invalid',
        parsed.error.issues.map((i) => ({ field: ['.pullwright.yml', ...i.path].join('.'), reason: i.message })),
      );
    }
    if (parsed.data.checks && Object.keys(parsed.data.checks).length > 0) return parsed.data.checks;
  }
  const pkgFile = path.join(root, 'package.json');
  if (existsSync(pkgFile)) {
    const scripts = (JSON.parse(readFileSync(pkgFile, 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
    const out: Record<string, string> = {};
    for (const name of PACKAGE_SCRIPTS) {
      if (scripts[name]) out[name] = name === 'test' ? 'npm test' : `npm run ${name}`;
    }
    return out;
  }
  return {};
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
    const run: CheckRun = {
      name,
      command,
      passed: result.exitCode === 0,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      output: result.output,
      timedOut: result.killedBy === 'timeout',
      failingTests: result.exitCode === 0 ? [] : failingTests(result.output),
    };
    await this.onRun?.(run);
    return run;
  }
}
