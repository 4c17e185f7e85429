import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const CLI = path.resolve(import.meta.dirname, '../../apps/cli/bin/pullwright.js');

export interface CliProcess {
  child: ChildProcess;
  /** Resolves once the output contains the ready marker; rejects if the process exits first. */
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** What it printed on stderr only: where start-up errors go. */
  errors(): string;
  /** What it printed on stdout only (an export's JSONL). */
  stdout(): string;
}

/**
 * `pullwright <args>` as a real process, as production runs it: its own Node, its own Redis
 * connections, killed by signals. Environment: exactly `env` plus PATH, HOME and
 * `NODE_ENV=test`, under which every event the process writes is checked against its schema
 * as in the test process (packages/queue/src/checked-event.ts).
 */
export function spawnCli(args: string[], env: Record<string, string>, readyMarker = '\u0000never'): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let std = '';
  let markReady: () => void = () => {};
  let markFailed: (e: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    markFailed = reject;
  });
  ready.catch(() => undefined);
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes(readyMarker)) markReady();
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    std += chunk.toString();
    onData(chunk);
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    onData(chunk);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      markFailed(
        new Error(`pullwright ${args[0]} exited before it was ready (${code ?? signal}):\n${out.slice(-2000)}`),
      );
      resolve({ code, signal });
    });
  });
  return { child, ready, exited, output: () => out, errors: () => err, stdout: () => std };
}
