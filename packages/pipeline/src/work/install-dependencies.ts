import { truncateOutput } from '@pullwright/agent';
import type { DependencyLayer } from '@pullwright/core';
import {
  type CommandResult,
  type CommandRunner,
  type DeploymentEgress,
  EgressProxy,
  type RefusedConnection,
} from '@pullwright/sandbox';
import type { Redactor } from '@pullwright/security';
import type { DependencyCache, DependencySpec } from '@pullwright/workspace';
import type { InstallCommand } from '../checks/repo-checks.ts';
import type { PipelineDeps } from '../frame/pipeline-deps.ts';
import { StopOperation } from '../frame/stop-operation.ts';

/** The deployment's egress settings, and who hears of each connection the proxy refused. */
interface InstallEgress extends DeploymentEgress {
  onRefused(refused: RefusedConnection): Promise<unknown>;
}

/** How a tree got its dependencies; a layered tree's commands need the layer mounted (see TreeDependencies). */
export type Installed = { how: 'none' | 'restored' | 'installed' } | { how: 'layered'; layer: DependencyLayer };

/**
 * The install step, wherever a tree needs its dependencies (an operation's worktree, a base
 * checkout for the baseline, the merge train's merged tree): the one sandboxed command
 * allowed network, with its own timeout, before any change by the model exists in that tree.
 * Its only way out is an egress proxy started for this run (the install's `allow` hosts plus
 * the deployment's); every refused connection is reported before this returns. With a cache,
 * a tree installed before from the same lock file, manifest and command is used instead (see
 * DependencyCache): mounted as a layer when the caller runs the tree's commands with it
 * (`layer`) and the runner can, else copied in.
 */
export async function installDependencies(
  runner: CommandRunner,
  install: InstallCommand | undefined,
  dir: string,
  redactor: Pick<Redactor, 'redact'>,
  egress: InstallEgress,
  cached?: { cache: DependencyCache; spec: Omit<DependencySpec, 'command'>; layer?: boolean },
  signal?: AbortSignal,
): Promise<Installed> {
  if (!install) return { how: 'none' };
  const key = cached?.cache.keyOf({ ...cached.spec, command: install.command });
  if (key && cached) {
    const layer = cached.layer && (await runner.layersDependencies?.()) && (await cached.cache.layer(key, dir));
    if (layer) return { how: 'layered', layer };
    if (await cached.cache.restore(key, dir)) return { how: 'restored' };
  }
  const reported: Promise<unknown>[] = [];
  const proxy = await EgressProxy.start(
    { allow: install.allow, trusted: egress.trusted, servicePorts: egress.servicePorts },
    {
      onRefused: (refused) => {
        const report = egress.onRefused(refused);
        // Awaited below; until then a failed report must not count as unhandled.
        report.catch(() => undefined);
        reported.push(report);
      },
    },
  );
  let r: CommandResult;
  try {
    r = await runner.run({
      command: install.command,
      cwd: dir,
      root: dir,
      timeoutMs: install.timeoutMs,
      egress: { socketDir: proxy.socketDir },
      ...(signal ? { signal } : {}),
    });
  } finally {
    await proxy.close();
  }
  await Promise.all(reported);
  if (r.killedBy === 'abort') throw new Error('install stopped: the job ended');
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
  return { how: 'installed' };
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

/** An operation's install egress: each refused connection becomes an `egress_refused` event naming the step. */
export function operationEgress(
  deps: Pick<PipelineDeps, 'egress' | 'events'>,
  opId: string,
  step: string,
): InstallEgress {
  return { ...deps.egress, onRefused: (refused) => deps.events.append(opId, 'egress_refused', { ...refused, step }) };
}
