import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CommandResult, CommandRunner, CommandSpec } from './command-runner.ts';
import { OutputBuffer } from './output-buffer.ts';
import { safeEnv } from './safe-env.ts';

export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;

/**
 * Runs a command as a plain child process with a scrubbed environment, a private HOME,
 * a timeout that kills the whole process group, and an output cap. No filesystem or
 * network isolation: the fallback when no sandbox is available.
 */
export class ProcessRunner implements CommandRunner {
  readonly name: string = 'process';

  async run(spec: CommandSpec): Promise<CommandResult> {
    const home = await mkdtemp(path.join(os.tmpdir(), 'pw-home-'));
    try {
      return await this.spawnAndCollect('sh', ['-c', spec.command], spec, safeEnv(home, spec.env));
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }

  protected spawnAndCollect(
    file: string,
    args: string[],
    spec: CommandSpec,
    env: Record<string, string>,
  ): Promise<CommandResult> {
    const started = performance.now();
    const output = new OutputBuffer(spec.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
    return new Promise((resolve) => {
      // detached: the child leads a process group, so a timeout kills its children too.
      const child = spawn(file, args, { cwd: spec.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let killedBy: CommandResult['killedBy'];
      const killGroup = (reason: 'timeout' | 'abort') => {
        killedBy ??= reason;
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => killGroup('timeout'), spec.timeoutMs);
      const onAbort = () => killGroup('abort');
      spec.signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout.setEncoding('utf8').on('data', (d: string) => output.push(d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => output.push(d));
      const finish = (exitCode: number | null, spawnError?: Error) => {
        clearTimeout(timer);
        spec.signal?.removeEventListener('abort', onAbort);
        if (spawnError) output.push(`\n${spawnError.message}`);
        const result: CommandResult = {
          exitCode,
          durationMs: Math.round(performance.now() - started),
          output: output.toString(),
          truncated: output.truncated,
        };
        if (killedBy) result.killedBy = killedBy;
        resolve(result);
      };
      child.on('error', (err) => finish(null, err));
      child.on('close', (code) => {
        // Group members may outlive the leader (a backgrounded server): reap them.
        if (child.pid) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // none left
          }
        }
        finish(killedBy ? null : code);
      });
    });
  }
}
