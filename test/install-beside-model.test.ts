import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Operation, OperationEvent } from '@pullwright/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel, type Turn, text, tool } from './support/scripted-model.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

/**
 * The first model call waits for nothing but the worktree (issue 29). The install here cannot
 * end until the model has been called — it waits for a file the first model turn writes — so
 * a job that awaited the install before the model would never call it, and this test would
 * time out instead of passing. The checks, which need the dependencies, wait for the install.
 * In the same way, a new run's worktree checkout here cannot end until the first model turn
 * has happened: that turn is built from the mirror's base commit, and the tools wait for the
 * checkout.
 */

const PLAN = text(
  JSON.stringify({
    summary: 'Make the answer 42',
    steps: [{ title: 'Edit the answer', files: ['app.js'], acceptance: 'tests pass' }],
  }),
);
const ACCEPT = text(JSON.stringify({ decision: 'accept', reasons: ['small and tested'] }));

/** The install: waits for `go` in the mirror (read-only in the sandbox; found through the worktree's .git file). */
const WAITING_INSTALL = [
  "import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';",
  "import path from 'node:path';",
  "const gitdir = readFileSync('.git', 'utf8').replace('gitdir:', '').trim();",
  "const go = path.join(gitdir, '..', '..', 'go');",
  'while (!existsSync(go)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);',
  "mkdirSync('node_modules/answer-dep', { recursive: true });",
  "writeFileSync('node_modules/answer-dep/index.js', 'export const expected = 42;\\n');",
].join('\n');

/** An install with nothing to wait for. */
const INSTALL = [
  "import { mkdirSync, writeFileSync } from 'node:fs';",
  "mkdirSync('node_modules/answer-dep', { recursive: true });",
  "writeFileSync('node_modules/answer-dep/index.js', 'export const expected = 42;\\n');",
].join('\n');

/** The test needs what the install put in node_modules. */
const TEST = [
  "import { answer } from './app.js';",
  "import { expected } from './node_modules/answer-dep/index.js';",
  "if (answer !== expected) { console.log('not ok 1 - answer is 42'); process.exit(1); }",
  "console.log('ok 1 - answer is 42');",
].join('\n');

let sys: TestSystem;
const scripts: Turn[][] = [];

async function repository(name: string, install: string): Promise<string> {
  const repo = `acme/${name}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-install-'));
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name, type: 'module', scripts: { test: 'node test.js' } }),
  );
  writeFileSync(path.join(dir, '.pullwright.yml'), 'install: node install.js\n');
  writeFileSync(path.join(dir, '.gitignore'), 'node_modules/\n');
  writeFileSync(path.join(dir, 'install.js'), install);
  writeFileSync(path.join(dir, 'app.js'), 'export const answer = 41;\n');
  writeFileSync(path.join(dir, 'test.js'), TEST);
  await sys.runtime.localForge!.createRepository(repo, {}, { fromDir: dir });
  rmSync(dir, { recursive: true, force: true });
  return repo;
}

async function operation(repo: string, turns: Turn[]): Promise<{ op: Operation; events: OperationEvent[] }> {
  scripts.push(turns);
  const res = await sys.request('POST', '/v1/operations', { type: 'implement', repo, description: 'Make it 42' });
  expect(res.status).toBe(202);
  const id = ((await res.json()) as { id: string }).id;
  const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
  return { op, events: await sys.runtime.events.list(id) };
}

const installEvents = (events: OperationEvent[]) =>
  events.filter((e) => e.type === 'step' && e.data.step === 'install').map((e) => e.data.state);

beforeAll(async () => {
  sys = await startTestSystem();
  sys.runtime.createProvider = () => new ScriptedModel(scripts.shift() ?? []);
}, 60_000);

afterAll(async () => {
  await sys?.stop();
});

describe('install beside the model', () => {
  it('the model is called while the install runs; the first check waits for the install', async () => {
    const repo = await repository('beside', WAITING_INSTALL);
    const mirror = sys.runtime.workspace.mirrorDir(repo);
    let atFirstCall: unknown[] = [];
    const { op, events } = await operation(repo, [
      async () => {
        const [current] = await sys.runtime.store.list({ repo });
        atFirstCall = installEvents(await sys.runtime.events.list(current!.id));
        writeFileSync(path.join(mirror, 'go'), '');
        return PLAN;
      },
      tool('edit_file', { path: 'app.js', oldText: 'answer = 41;', newText: 'answer = 42;' }),
      tool('run_check', { name: 'test' }),
      text('Done.'),
      ACCEPT,
    ]);
    expect(op.error).toBeUndefined();
    expect(op.status).toBe('awaiting_approval');
    // The install step had handed its work to the background, and it was not done, at the first call.
    expect(atFirstCall).toEqual(['started', 'finished']);
    expect(
      events.find((e) => e.type === 'step' && e.data.state === 'ready' && e.data.step === 'install')?.data,
    ).toEqual(expect.objectContaining({ how: 'installed' }));
    // The check ran against what the install wrote: 42 from node_modules.
    expect(op.checks).toEqual([expect.objectContaining({ name: 'test', passed: true })]);
  });

  it('the model is called while the worktree is checked out; its tools wait for the checkout', async () => {
    const repo = await repository('checkout', INSTALL);
    const workspace = sys.runtime.workspace;
    const prepare = workspace.prepare.bind(workspace);
    let go = () => {};
    const signalled = new Promise<void>((resolve) => {
      go = resolve;
    });
    // The worktree's checkout starts only once the first model turn has happened.
    workspace.prepare = async (req) => {
      await signalled;
      return prepare(req);
    };
    let worktreeAtFirstCall: boolean | undefined;
    let firstPrompt = '';
    try {
      const { op } = await operation(repo, [
        async (request) => {
          const [current] = await sys.runtime.store.list({ repo });
          worktreeAtFirstCall = existsSync(path.join(workspace.worktreeDir(current!.id), '.git'));
          firstPrompt = JSON.stringify(request.messages);
          go();
          return PLAN;
        },
        tool('edit_file', { path: 'app.js', oldText: 'answer = 41;', newText: 'answer = 42;' }),
        tool('run_check', { name: 'test' }),
        text('Done.'),
        ACCEPT,
      ]);
      expect(op.error).toBeUndefined();
      expect(op.status).toBe('awaiting_approval');
      expect(worktreeAtFirstCall).toBe(false);
      // The repository map of that first turn came from the base commit's git objects.
      expect(firstPrompt).toContain('app.js');
      expect(firstPrompt).toContain('install.js');
      // The edit and the check ran in the worktree once it was there.
      expect(op.checks).toEqual([expect.objectContaining({ name: 'test', passed: true })]);
    } finally {
      workspace.prepare = prepare;
    }
  });

  it('a failed install fails the job at its first check, with the install output', async () => {
    const repo = await repository(
      'broken',
      "console.error('npm ERR! 404 Not Found - GET registry/answer-dep'); process.exit(1);\n",
    );
    let modelCalled = false;
    const { op } = await operation(repo, [
      async () => {
        modelCalled = true;
        return PLAN;
      },
      tool('run_check', { name: 'test' }),
      text('Done.'),
    ]);
    expect(modelCalled).toBe(true);
    expect(op.status).toBe('failed');
    expect(op.error).toContain('dependency install (node install.js) failed');
    expect(op.error).toContain('npm ERR! 404 Not Found');
  });
});
