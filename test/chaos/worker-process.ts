import { type CliProcess, spawnCli } from '../support/cli-process.ts';

export type WorkerProcess = CliProcess;

/** `pullwright worker` as a real process; ready once it logged that it takes jobs. */
export function spawnWorker(env: Record<string, string>): WorkerProcess {
  return spawnCli(['worker'], { LOG_LEVEL: 'info', WORKER_PORT: '0', ...env }, '"worker started"');
}
