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
  const lines: Array<{ level: number; msg: string; runner?: string; reason?: string }> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination }) };
}

const WARN = 40;
const hasBwrap = spawnSync('bwrap', ['--version']).status === 0;

describe('createCommandRunner', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-select-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`picks ${hasBwrap ? 'bubblewrap (its probe run succeeds here)' : 'the process runner (no bwrap here)'} by default`, async () => {
    const { lines, logger } = capture();
    const runner = await createCommandRunner({ logger });
    expect(runner.name).toBe(hasBwrap ? 'bubblewrap' : 'process');
    expect(lines.some((l) => l.level === WARN)).toBe(!hasBwrap);
  });

  it('falls back to the process runner with a warning when bwrap cannot run and docker is not configured', async () => {
    const { lines, logger } = capture();
    const runner = await createCommandRunner({ logger, bubblewrap: { bwrap: path.join(dir, 'no-such-bwrap') } });
    expect(runner.name).toBe('process');
    expect(lines.find((l) => l.runner === 'bubblewrap')?.msg).toBe('command sandbox unavailable');
    const warning = lines.find((l) => l.level === WARN);
    expect(warning?.msg).toMatch(/WITHOUT a sandbox/);
    const result = await runner.run({ command: 'echo $HOME', cwd: dir, timeoutMs: 5_000 });
    expect(result.exitCode).toBe(0);
    expect(result.output).toMatch(/pw-home-/);
  });

  it('skips a configured docker engine that does not answer', async () => {
    const { lines, logger } = capture();
    const runner = await createCommandRunner({
      logger,
      bubblewrap: { bwrap: path.join(dir, 'no-such-bwrap') },
      docker: { image: 'x', docker: new Docker({ socketPath: path.join(dir, 'no-engine.sock') }) },
    });
    expect(runner.name).toBe('process');
    expect(lines.find((l) => l.runner === 'docker')?.reason).toBe('engine did not answer');
  });

  it("honours prefer: 'process' and still warns", async () => {
    const { lines, logger } = capture();
    const runner = await createCommandRunner({ prefer: 'process', logger });
    expect(runner.name).toBe('process');
    expect(lines.map((l) => l.level)).toEqual([WARN]);
  });
});
