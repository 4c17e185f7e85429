import { truncateOutput } from '@pullwright/agent';
import type { CommandRunner } from '@pullwright/sandbox';
import type { Redactor } from '@pullwright/security';
import type { DependencyCache, DependencySpec } from '@pullwright/workspace';
import { StopOperation } from '../frame/stop-operation.ts';
import type { PipelineDeps } from '../pipeline-deps.ts';
import type { RepoCommand } from '../repo-checks.ts';

/**
 * The install step, wherever a tree needs its dependencies (an operation's worktree, a base
 * checkout for the baseline, the merge train's merged tree): the one sandboxed command
 * allowed network (package registries only), with its own timeout, before any change by
 * the model exists in that tree. With a cache, a tree installed before from the same lock
 * file, manifest and command is copied in instead (see DependencyCache).
 */
export async function installDependencies(
  runner: CommandRunner,
  install: RepoCommand | undefined,
  dir: string,
  redactor: Pick<Redactor, 'redact'>,
  cached?: { cache: DependencyCache; spec: Omit<DependencySpec, 'command'> },
): Promise<'none' | 'restored' | 'installed'> {
  if (!install) return 'none';
  const key = cached?.cache.keyOf({ ...cached.spec, command: install.command });
  if (key && (await cached!.cache.restore(key, dir))) return 'restored';
  const r = await runner.run({
    command: install.command,
    cwd: dir,
    root: dir,
    timeoutMs: install.timeoutMs,
    network: true,
  });
  if (r.exitCode !== 0) {
    const why = r.killedBy === 'timeout' ? `timed out after ${Math.round(install.timeoutMs / 1000)} s` : 'failed';
    throw new StopOperation({
      code: 'install_failed',
      command: install.command,
      detail: `${why}:\n${redactor.redact(truncateOutput(r.output.trim(), 4000))}`,
    });
  }
  // Stored before anything else runs in this tree: no check or model has touched it yet.
  if (key) await cached!.cache.store(key, dir);
  return 'installed';
}

/** The host's dependency cache for a base commit: its lock file and manifest decide the key. */
export async function dependencyCacheOf(
  deps: Pick<PipelineDeps, 'dependencies' | 'workspace'>,
  repo: string,
  baseSha: string,
): Promise<{ cache: DependencyCache; spec: Omit<DependencySpec, 'command'> } | undefined> {
  const [lockfile, manifest] = await deps.workspace.readManyAt(repo, baseSha, ['package-lock.json', 'package.json']);
  return lockfile === undefined || manifest === undefined
    ? undefined
    : { cache: deps.dependencies, spec: { repo, lockfile, manifest } };
}
