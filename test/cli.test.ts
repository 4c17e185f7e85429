import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = path.resolve(import.meta.dirname, '../apps/cli/bin/pullwright.js');
const run = (args: string[], input?: string) =>
  spawnSync('node', [BIN, ...args], { encoding: 'utf8', input: input ?? '', timeout: 30_000 });

describe('pullwright CLI', () => {
  it('scan exits 1 on a secret in a file and prints no secret', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-cli-'));
    writeFileSync(path.join(dir, 'config.js'), 'export const k = "ghp_PLANTEDrepo0123456789abcdefghijklmno";\n');
    writeFileSync(path.join(dir, 'clean.js'), 'export const k = process.env.TOKEN;\n');
    const r = run(['scan', dir]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('config.js:1: github-pat (ghp_…)');
    expect(r.stdout + r.stderr).not.toContain('PLANTEDrepo');
    expect(run(['scan', path.join(dir, 'clean.js')]).status).toBe(0);
  });

  it('scan reads a diff on stdin with --json', () => {
    const diff =
      'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+token=xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx\n';
    const r = run(['scan', '--json'], diff);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).findings).toEqual([
      { ruleId: 'slack-bot-token', file: 'x', line: 1, preview: 'xoxb…' },
    ]);
  });

  it('reports a bad configuration once, without a stack trace', () => {
    const r = spawnSync('node', [BIN, 'api'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', PORT: 'eighty', REDIS_URL: 'nope' },
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PORT:');
    expect(r.stderr).toContain('REDIS_URL:');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a worker configured for bubblewrap without bwrap on PATH exits non-zero naming the reason and the fix', () => {
    // PATH holds node and the other sandbox tools, but no bwrap.
    const bin = mkdtempSync(path.join(os.tmpdir(), 'pw-cli-path-'));
    for (const tool of [process.execPath, '/usr/bin/prlimit', '/usr/bin/unshare']) {
      symlinkSync(tool, path.join(bin, path.basename(tool)));
    }
    const data = mkdtempSync(path.join(os.tmpdir(), 'pw-cli-data-'));
    try {
      const r = spawnSync(process.execPath, [BIN, 'worker'], {
        encoding: 'utf8',
        env: {
          PATH: bin,
          SANDBOX: 'bubblewrap',
          REDIS_URL: 'redis://127.0.0.1:1',
          DATA_DIR: data,
          LLM_PROVIDER: 'replay',
          REPLAY_FILE: path.resolve(import.meta.dirname, '../apps/cli/demo/debug-slugify.replay.json'),
        },
        timeout: 30_000,
      });
      expect(r.status).toBe(1);
      expect(r.stderr.trim()).toMatch(
        /^pullwright worker: SANDBOX=bubblewrap cannot start: bwrap not found on PATH\. Fix: install bubblewrap .* or SANDBOX=none to run repository code without a sandbox$/,
      );
    } finally {
      rmSync(bin, { recursive: true, force: true });
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('prints usage for an unknown command with exit 2', () => {
    const r = run(['frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('usage: pullwright <command>');
  });
});
