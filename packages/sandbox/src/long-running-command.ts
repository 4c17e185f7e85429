import { spawn } from 'node:child_process';
import type { CommandSpec, RunningCommand } from './command-runner.ts';

/** Bytes of stderr kept: enough for the error a server printed before it died. */
const STDERR_TAIL_BYTES = 8 * 1024;

/**
 * Spawns `file` as the leader of a long-running command's tree, its stdin and stdout piped to
 * the caller. The caller's wrapping (bwrap's pid namespace, `--die-with-parent`) must make the
 * tree die with the leader: this kills the leader's process group at the end of its life
 * (`spec.timeoutMs`), on abort or on `stop()`, then runs `cleanup` (a cgroup, a temp HOME).
 */
export function spawnLongRunning(
  file: string,
  args: string[],
  spec: CommandSpec,
  env: Record<string, string>,
  cleanup: () => Promise<void>,
): RunningCommand {
  const child = spawn(file, args, { cwd: spec.cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-STDERR_TAIL_BYTES);
  });
  // A server that exits while we write gets EPIPE: its exit is what reports it.
  child.stdin.on('error', () => undefined);
  let killedBy: 'timeout' | 'abort' | 'stop' | undefined;
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const kill = (reason: 'timeout' | 'abort' | 'stop') => {
    killedBy ??= reason;
    killGroup();
  };
  const timer = setTimeout(() => kill('timeout'), spec.timeoutMs);
  const onAbort = () => kill('abort');
  spec.signal?.addEventListener('abort', onAbort, { once: true });
  const exited = new Promise<{ exitCode: number | null; killedBy?: 'timeout' | 'abort' | 'stop' }>((resolve) => {
    let done = false;
    const finish = async (exitCode: number | null, spawnError?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      if (spawnError) stderr = `${stderr}\n${spawnError.message}`.trim();
      // The leader is gone: reap whatever is left of its group, then free what the runner set up.
      killGroup();
      await cleanup().catch(() => undefined);
      resolve(killedBy ? { exitCode: null, killedBy } : { exitCode });
    };
    child.on('error', (err) => void finish(null, err));
    child.on('exit', (code) => void finish(code));
  });
  return {
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: () => stderr,
    exited,
    async stop() {
      kill('stop');
      await exited;
    },
  };
}
