import { type Logger, PullwrightError, silentLogger } from '@pullwright/core';
import { BubblewrapRunner, type BubblewrapRunnerOptions } from './bubblewrap-runner.ts';
import { CgroupScope } from './cgroup-scope.ts';
import type { CommandRunner } from './command-runner.ts';
import { DockerRunner, type DockerRunnerOptions } from './docker-runner.ts';
import { PidNamespace } from './pid-namespace.ts';
import { ProcessRunner } from './process-runner.ts';

/** The `SANDBOX` setting: a named sandbox, the first that works (`auto`), or none on purpose. */
type SandboxSetting = 'auto' | 'bubblewrap' | 'docker' | 'none';

interface CreateCommandRunnerOptions {
  /** Default `auto`. */
  sandbox?: SandboxSetting;
  logger?: Logger;
  bubblewrap?: BubblewrapRunnerOptions;
  /** Required for `docker`; with `auto`, docker is tried after bubblewrap only when given. */
  docker?: DockerRunnerOptions;
}

/**
 * Builds the runner for repository commands and proves it works with a real probe run
 * (bwrap exists on hosts where user namespaces are disabled). Fails closed: a configured
 * sandbox that cannot start, or `auto` with nothing that sandboxes, throws a message naming
 * the fix, and the worker does not start. Only `none` runs repository code unsandboxed, and
 * says so at start.
 */
export async function createCommandRunner(options: CreateCommandRunnerOptions = {}): Promise<CommandRunner> {
  const logger = options.logger ?? silentLogger();
  const sandbox = options.sandbox ?? 'auto';
  if (sandbox === 'none') {
    const runner = new ProcessRunner();
    const support = PidNamespace.support();
    const trees =
      'prefix' in support
        ? 'each command in its own pid namespace'
        : `no pid namespace here (${support.reason}): a detached child can outlive its command`;
    logger.warn(
      { runner: runner.name, sandboxed: false },
      `SANDBOX=none: repository commands run WITHOUT a sandbox (environment scrubbed, timeouts enforced, ${trees}; the host's files and network are visible)`,
    );
    return runner;
  }
  const reasons: string[] = [];
  if (sandbox === 'bubblewrap' || sandbox === 'auto') {
    const runner = new BubblewrapRunner(options.bubblewrap);
    try {
      await runner.probe();
      logger.info(
        { runner: runner.name, limits: runner.limits, cgroup: CgroupScope.availableControllers() },
        'command sandbox ready',
      );
      return runner;
    } catch (err) {
      if (sandbox === 'bubblewrap') throw err;
      reasons.push(`bubblewrap: ${reasonOf(err)}`);
    }
  }
  if (sandbox === 'docker' || options.docker) {
    if (!options.docker) {
      throw new PullwrightError('config_invalid', 'SANDBOX=docker needs an image. Fix: set SANDBOX_DOCKER_IMAGE');
    }
    const runner = new DockerRunner(options.docker);
    if (await runner.available()) {
      logger.info({ runner: runner.name, image: runner.image, limits: runner.limits }, 'command sandbox ready');
      return runner;
    }
    const reason =
      'SANDBOX=docker cannot start: the Docker engine did not answer. Fix: give the worker the engine socket (/var/run/docker.sock or DOCKER_HOST), or set SANDBOX=bubblewrap, or SANDBOX=none to run repository code without a sandbox';
    if (sandbox === 'docker') throw new PullwrightError('config_invalid', reason);
    reasons.push('docker: the engine did not answer');
  }
  throw new PullwrightError(
    'config_invalid',
    `SANDBOX=auto found no sandbox that starts (${reasons.join('; ')}). Fix: install bubblewrap, or set SANDBOX=docker with SANDBOX_DOCKER_IMAGE, or SANDBOX=none to run repository code without a sandbox`,
    { reasons },
  );
}

function reasonOf(err: unknown): string {
  const reason = err instanceof PullwrightError ? err.context.reason : undefined;
  return typeof reason === 'string' ? reason : (err as Error).message;
}
