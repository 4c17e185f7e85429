import { spawn } from 'node:child_process';
import { HARDENED_GIT_CONFIG } from '@pullwright/security';

export class GitCommandError extends Error {}

/**
 * git with the hardened configuration (no hooks, no fsmonitor, no external helpers), a
 * minimal environment plus `env` (simple-git refuses GIT_* variables), and raw bytes out.
 */
export function runGit(dir: string, args: string[], input?: string, env: Record<string, string> = {}): Promise<Buffer> {
  const config = HARDENED_GIT_CONFIG.flatMap((c) => ['-c', c]);
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...config, '-C', dir, ...args], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        GIT_TERMINAL_PROMPT: '0',
        ...env,
      },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else
        reject(new GitCommandError(`git ${args[0]} failed (${code}): ${Buffer.concat(err).toString('utf8').trim()}`));
    });
    if (input !== undefined) {
      // A git that exits early (bad object name) closes its input: that error is reported by 'close'.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(input);
    }
  });
}
