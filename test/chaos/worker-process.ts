import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const CLI = path.resolve(import.meta.dirname, '../../apps/cli/bin/pullwright.js');

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves once the worker logged that it takes jobs. */
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it printed so far (pino JSON lines). */
  output(): string;
}

/**
 * `pullwright worker` as a real process, as production runs it: its own Node, its own Redis
 * connections, killed by signals. Environment: only what the worker needs plus PATH/HOME.
 */
export function spawnWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, [CLI, 'worker'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let markReady: () => void = () => {};
  let markFailed: (err: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    markFailed = reject;
  });
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes('"worker started"')) markReady();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      markFailed(new Error(`worker exited before it was ready (${code ?? signal}):\n${out.slice(-2000)}`));
      resolve({ code, signal });
    });
  });
  return { child, ready, exited, output: () => out };
}
