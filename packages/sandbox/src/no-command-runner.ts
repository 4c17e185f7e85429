import { PullwrightError } from '@pullwright/core';
import type { CommandResult, CommandRunner } from './command-runner.ts';

/**
 * The runner of a process that never runs repository code (the API alone): it needs no
 * sandbox to start, and a call that reaches it anyway is refused rather than run unsandboxed.
 */
export class NoCommandRunner implements CommandRunner {
  readonly name: string = 'none';
  readonly sandboxed: boolean = false;

  async run(): Promise<CommandResult> {
    throw new PullwrightError('config_invalid', 'this process runs no repository commands: start a worker to run them');
  }
}
