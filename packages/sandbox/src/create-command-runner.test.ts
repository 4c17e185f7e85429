import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '@pullwright/core';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { createCommandRunner } from './create-command-runner.ts';

function capture() {
  const lines: Array<{ level: number; msg: string; runner?: string; sandboxed?: boolean }> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination }) };
}

const WARN = 40;

describe('createCommandRunner fails closed', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-select-'));
  const noBwrap = path.join(dir, 'no-such-bwrap');
  const deadEngine = () => new Docker({ socketPath: path.join(dir, 'no-engine.sock') });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('picks bubblewrap when its probe run succeeds, sandboxed and without a warning', async () => {
    expect(spawnSync('bwrap', ['--version']).status).toBe(0);
    const { lines, logger } = capture();
    const runner = await createCommandRunner({ logger });
    expect(runner).toMatchObject({ name: 'bubblewrap', sandboxed: true });
    expect(lines.some((l) => l.level >= WARN)).toBe(false);
  });

  it.each([
    [
      'bubblewrap',
      { sandbox: 'bubblewrap' as const },
      /SANDBOX=bubblewrap cannot start: .*no-such-bwrap not found on PATH\. Fix: install bubblewrap/,
    ],
    [
      'auto (nothing sandboxes)',
      { docker: { image: 'x', docker: deadEngine() } },
      /SANDBOX=auto found no sandbox that starts \(bubblewrap: .*not found on PATH; docker: the engine did not answer\)\. Fix: install bubblewrap/,
    ],
    [
      'docker (engine away)',
      { sandbox: 'docker' as const, docker: { image: 'x', docker: deadEngine() } },
      /SANDBOX=docker cannot start: the Docker engine did not answer\. Fix: give the worker the engine socket/,
    ],
    ['docker (no image)', { sandbox: 'docker' as const }, /Fix: set SANDBOX_DOCKER_IMAGE/],
  ])('refuses %s with the reason and the fix, never a plain process', async (_name, options, message) => {
    await expect(createCommandRunner({ bubblewrap: { bwrap: noBwrap }, ...options })).rejects.toMatchObject({
      code: 'config_invalid',
      message: expect.stringMatching(message),
    });
  });

  it('runs unsandboxed only for SANDBOX=none, with a warning and sandboxed: false', async () => {
    const { lines, logger } = capture();
    const runner = await createCommandRunner({ sandbox: 'none', logger });
    expect(runner).toMatchObject({ name: 'process', sandboxed: false });
    expect(lines).toEqual([
      expect.objectContaining({
        level: WARN,
        sandboxed: false,
        msg: expect.stringMatching(/^SANDBOX=none: .*WITHOUT a sandbox .*each command in its own pid namespace/),
      }),
    ]);
    const result = await runner.run({ command: 'echo $HOME', cwd: dir, timeoutMs: 5_000 });
    expect(result).toMatchObject({ exitCode: 0, output: expect.stringMatching(/pw-home-/) });
  });
});
