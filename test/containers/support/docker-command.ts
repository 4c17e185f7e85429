import { spawn } from 'node:child_process';

interface DockerCommandOptions {
  /** Extra environment (e.g. COMPOSE_* variables) on top of this process's. */
  env?: Record<string, string>;
  /** Print the command's output as it runs (image builds), instead of collecting it only. */
  echo?: boolean;
  /** Text written to its standard input. */
  input?: string;
}

/**
 * Runs `docker <args>` and resolves with its standard output; rejects with the command line,
 * exit status and the end of its standard error. Asynchronous, so a long build or a wait for
 * health checks never blocks the test process.
 */
export function dockerCommand(args: readonly string[], options: DockerCommandOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker', args, { env: { ...process.env, ...options.env }, stdio: 'pipe' });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      out.push(chunk);
      if (options.echo) process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err.push(chunk);
      if (options.echo) process.stderr.write(chunk);
    });
    child.stdin.end(options.input ?? '');
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out).toString('utf8');
      if (code === 0) return resolve(stdout);
      const stderr = Buffer.concat(err).toString('utf8').trim().split('\n').slice(-15).join('\n');
      reject(new Error(`docker ${args.join(' ')}: exit ${code ?? signal}\n${stderr}`));
    });
  });
}
