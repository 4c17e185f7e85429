import { truncateOutput } from '@pullwright/agent';
import type { CommandRunner } from '@pullwright/sandbox';
import type { Redactor } from '@pullwright/security';
import { StopOperation } from '../frame/stop-operation.ts';
import type { RepoCommand } from '../repo-checks.ts';

/**
 * The install step, wherever a tree needs its dependencies (an operation's worktree, a base
 * checkout for the baseline, the merge train's merged tree): the one sandboxed command
 * allowed network (package registries only), with its own timeout, before any change by
 * the model exists in that tree.
 */
export async function installDependencies(
  runner: CommandRunner,
  install: RepoCommand | undefined,
  dir: string,
  redactor: Pick<Redactor, 'redact'>,
): Promise<void> {
  if (!install) return;
  const r = await runner.run({
    command: install.command,
    cwd: dir,
    root: dir,
    timeoutMs: install.timeoutMs,
    network: true,
  });
  if (r.exitCode !== 0) {
    const why = r.killedBy === 'timeout' ? `timed out after ${Math.round(install.timeoutMs / 1000)} s` : 'failed';
    throw new StopOperation(
      'failed',
      `dependency install (${install.command}) ${why}:\n${redactor.redact(truncateOutput(r.output.trim(), 4000))}`,
    );
  }
}
