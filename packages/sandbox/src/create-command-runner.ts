import { type Logger, silentLogger } from '@pullwright/core';
import { BubblewrapRunner, type BubblewrapRunnerOptions } from './bubblewrap-runner.ts';
import { CgroupScope } from './cgroup-scope.ts';
import type { CommandRunner } from './command-runner.ts';
import { DockerRunner, type DockerRunnerOptions } from './docker-runner.ts';
import { ProcessRunner } from './process-runner.ts';

export type RunnerKind = 'bubblewrap' | 'docker' | 'process';

export interface CreateCommandRunnerOptions {
  /** Tried first; the others follow in the order bubblewrap, docker, process. */
  prefer?: RunnerKind;
  logger?: Logger;
  bubblewrap?: BubblewrapRunnerOptions;
  /** Docker is a candidate only when configured (an image to run is required). */
  docker?: DockerRunnerOptions;
}

/**
 * Picks the strongest runner this host supports, proven by a real probe run rather than by
 * finding a binary (bwrap exists on hosts where user namespaces are disabled). Falls back to
 * the plain ProcessRunner last, with a warning: it scrubs the environment and enforces
 * timeouts and output caps but isolates neither files nor network.
 */
export async function createCommandRunner(options: CreateCommandRunnerOptions = {}): Promise<CommandRunner> {
  const logger = options.logger ?? silentLogger();
  // `prefer: 'process'` means no sandbox on purpose (local debugging): still warned about below.
  const sandboxes: Array<'bubblewrap' | 'docker'> =
    options.prefer === 'process'
      ? []
      : options.prefer === 'docker'
        ? ['docker', 'bubblewrap']
        : ['bubblewrap', 'docker'];
  for (const kind of sandboxes) {
    if (kind === 'bubblewrap') {
      const runner = new BubblewrapRunner(options.bubblewrap);
      const probe = await runner.probe();
      if (probe.ok) {
        logger.info(
          { runner: kind, limits: runner.limits, cgroup: CgroupScope.availableControllers() },
          'command sandbox ready',
        );
        return runner;
      }
      logger.info({ runner: kind, reason: probe.reason }, 'command sandbox unavailable');
    } else if (options.docker) {
      const runner = new DockerRunner(options.docker);
      if (await runner.available()) {
        logger.info({ runner: kind, image: runner.image, limits: runner.limits }, 'command sandbox ready');
        return runner;
      }
      logger.info({ runner: kind, reason: 'engine did not answer' }, 'command sandbox unavailable');
    }
  }
  logger.warn(
    { runner: 'process' },
    'repo commands run WITHOUT a sandbox: environment scrubbed and timeouts enforced, but no filesystem, network or pids isolation',
  );
  return new ProcessRunner();
}
