import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { leftoverProcesses } from './leftover-processes.ts';
import { ProcessRunner } from './process-runner.ts';

/** A sleep argument no other process on the host has: `sleep 600.<unique>` sleeps 600 s. */
const marker = () => `600.${Date.now()}${randomBytes(3).readUIntBE(0, 3)}`;
const escapee = (m: string) => `setsid sh -c 'trap "" TERM HUP; exec sleep ${m}' &`;

describe('ProcessRunner contains the whole process tree', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-process-'));
  const runner = new ProcessRunner();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('kills a setsid child that ignores SIGTERM at the timeout and returns within timeout + 2 s', async () => {
    const m = marker();
    const timeoutMs = 400;
    const started = Date.now();
    const result = await runner.run({ command: `${escapee(m)} sleep ${m}`, cwd: dir, timeoutMs });
    expect(result.killedBy).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(timeoutMs + 2_000);
    expect(leftoverProcesses(`sleep ${m}`)).toBe('');
  });

  it('ends when the command exits even though a detached child still holds the output pipe', async () => {
    const m = marker();
    const timeoutMs = 30_000;
    const started = Date.now();
    const result = await runner.run({ command: `${escapee(m)} echo started`, cwd: dir, timeoutMs });
    expect(result).toMatchObject({ exitCode: 0, output: 'started\n' });
    expect(result.killedBy).toBeUndefined();
    // Far below the timeout: the run did not wait for the sleeper.
    expect(Date.now() - started).toBeLessThan(timeoutMs / 10);
    expect(leftoverProcesses(`sleep ${m}`)).toBe('');
  });

  it('fails a piped command whose first part fails, like a CI shell', async () => {
    expect(
      (await runner.run({ command: 'node -e "process.exit(1)" | cat', cwd: dir, timeoutMs: 30_000 })).exitCode,
    ).toBe(1);
    expect((await runner.run({ command: 'true | cat', cwd: dir, timeoutMs: 30_000 })).exitCode).toBe(0);
  });
});
