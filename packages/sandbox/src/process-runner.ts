import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CommandResult, CommandRunner, CommandSpec } from './command-runner.ts';
import { OutputBuffer } from './output-buffer.ts';
import { PidNamespace } from './pid-namespace.ts';
import { DEFAULT_RESOURCE_LIMITS, formatLimit } from './resource-limits.ts';
import { safeEnv } from './safe-env.ts';
import { shellArgv } from './shell-argv.ts';
import { treeDiskWrites } from './tree-disk-writes.ts';

export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;

/**
 * How long output is still collected after the command's first process has exited and its
 * tree was killed. Everything in the tree is dead by then (pid namespace or cgroup); the grace
 * only covers the kernel closing the pipe ends, so a pipe still open after it is dropped.
 */
const PIPE_GRACE_MS = 1_000;

/**
 * How often the disk a command has written is measured. A check that writes 220 MB/s (1.5 GiB
 * in 6.8 s, the incident) gets about 55 MB past its limit before it is killed.
 */
const DISK_POLL_MS = 250;

/**
 * How a process reports a write past RLIMIT_FSIZE: killed by SIGXFSZ (status 128 + 25, the
 * shell's "File size limit exceeded"), or EFBIG where it ignores the signal (node, python).
 */
const FILE_SIZE_LIMIT_HIT = /File size limit exceeded|EFBIG|File too large/;
const SIGXFSZ_STATUS = 128 + 25;

/**
 * Runs a command as a plain child process with a scrubbed environment, a private HOME, an
 * output cap, and its own pid namespace where the host has one: when the command's first
 * process exits or is killed at the timeout, the kernel kills every process it started,
 * `setsid` and SIGTERM-ignoring ones included. Without one (macOS), only the process group is
 * killed. No filesystem or network isolation: SANDBOX=none only, for local development.
 */
export class ProcessRunner implements CommandRunner {
  readonly name: string = 'process';
  readonly sandboxed: boolean = false;

  async run(spec: CommandSpec): Promise<CommandResult> {
    const support = PidNamespace.support();
    const argv = ['prefix' in support ? support.prefix : [], shellArgv(spec.command)].flat();
    const home = await mkdtemp(path.join(os.tmpdir(), 'pw-home-'));
    try {
      const [file = 'bash', ...args] = argv;
      return await this.spawnAndCollect(file, args, spec, safeEnv(home, spec.env), DEFAULT_RESOURCE_LIMITS.diskBytes);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }

  /**
   * Spawns `file` as the leader of the command's tree and collects its output. The caller's
   * wrapping (a pid namespace, bwrap) must make the tree die with the leader: this method only
   * kills the leader (and its process group), then stops reading once the pipes close or
   * PIPE_GRACE_MS after the leader is gone, whichever comes first. The tree is killed, and its
   * output says why, once it has put more than `diskBytes` on disk.
   */
  protected spawnAndCollect(
    file: string,
    args: string[],
    spec: CommandSpec,
    env: Record<string, string>,
    diskBytes: number,
  ): Promise<CommandResult> {
    const started = performance.now();
    const output = new OutputBuffer(spec.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
    return new Promise((resolve) => {
      // detached: the leader heads a process group, so the kill reaches its direct helpers too.
      const child = spawn(file, args, { cwd: spec.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let killedBy: CommandResult['killedBy'];
      const killGroup = () => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const kill = (reason: NonNullable<CommandResult['killedBy']>) => {
        killedBy ??= reason;
        killGroup();
      };
      const timer = setTimeout(() => kill('timeout'), spec.timeoutMs);
      let measuring = false;
      const meter = setInterval(async () => {
        if (measuring || !child.pid || killedBy) return;
        measuring = true;
        const written = await treeDiskWrites(child.pid);
        measuring = false;
        if (written === undefined || written <= diskBytes || killedBy) return;
        output.push(
          `\n[pullwright] killed: the command wrote more than ${formatLimit(diskBytes)} to disk, the sandbox's disk limit\n`,
        );
        kill('disk_limit');
      }, DISK_POLL_MS);
      const onAbort = () => kill('abort');
      spec.signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout.setEncoding('utf8').on('data', (d: string) => output.push(d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => output.push(d));
      let done = false;
      let grace: NodeJS.Timeout | undefined;
      const finish = (exitCode: number | null, spawnError?: Error) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearInterval(meter);
        clearTimeout(grace);
        spec.signal?.removeEventListener('abort', onAbort);
        child.stdout.destroy();
        child.stderr.destroy();
        if (spawnError) output.push(`\n${spawnError.message}`);
        if (!killedBy && exitCode !== 0 && (exitCode === SIGXFSZ_STATUS || FILE_SIZE_LIMIT_HIT.test(output.toString())))
          output.push(
            `\n[pullwright] a file reached ${formatLimit(diskBytes)}, the largest the sandbox's disk limit allows\n`,
          );
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
      child.on('exit', (code) => {
        // The tree died with its leader; reap the group's stragglers and stop waiting on a
        // pipe that something outside the tree could still hold.
        killGroup();
        grace = setTimeout(() => finish(killedBy ? null : code), PIPE_GRACE_MS);
      });
      child.on('close', (code) => finish(killedBy ? null : code));
    });
  }
}
