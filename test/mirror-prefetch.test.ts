import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { OperationEvent } from '@pullwright/core';
import { eventually } from '@pullwright/testing/eventually';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnswerRepo } from './support/answer-repo.ts';
import { ScriptedModel, type Turn, text, tool } from './support/scripted-model.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

/**
 * Time to PR (issue 16): a busy worker fetches the mirror of a job waiting for it, so the
 * job, once claimed, starts from a mirror fetched after its request without fetching again —
 * and still from the base as it was when the request came, not as the worker last saw it.
 */

const REPO = 'acme/prefetch';
const PLAN = text(
  JSON.stringify({ summary: 'Make it 44', steps: [{ title: 'Edit', files: ['src/app.js'], acceptance: 'green' }] }),
);
const ACCEPT = text(JSON.stringify({ decision: 'accept', reasons: ['tested'] }));
const FIX = [
  tool('edit_file', { path: 'src/app.js', oldText: 'answer = 41', newText: 'answer = 44' }),
  text('Done.'),
  ACCEPT,
];

let sys: TestSystem;
const scripts: Turn[][] = [];

beforeAll(async () => {
  sys = await startTestSystem({ env: { WORKER_CONCURRENCY: '1' } });
  sys.runtime.createProvider = () => new ScriptedModel(scripts.shift() ?? []);
  await createAnswerRepo(sys.runtime.localForge!, REPO);
}, 60_000);

afterAll(async () => {
  await sys?.stop();
});

async function create(): Promise<string> {
  const res = await sys.request('POST', '/v1/operations', { type: 'implement', repo: REPO, description: 'Make it 44' });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

const until = (what: string, probe: () => boolean) => eventually(what, probe, { intervalMs: 25 });

const prepared = (events: OperationEvent[]) =>
  events.find((e) => e.type === 'step' && e.data.step === 'prepare' && e.data.state === 'finished')?.data;

describe('mirror prefetch', () => {
  it('a job waiting for a busy worker finds its mirror fetched after its request, at the new base', async () => {
    let release: () => void = () => undefined;
    let called = false;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    scripts.push([
      async () => {
        called = true;
        await held;
        return PLAN;
      },
      ...FIX,
    ]);
    scripts.push([PLAN, ...FIX]);
    const first = await create();
    await until('the first operation holds the only worker', () => called);

    // The base moves while the worker is busy.
    const forgeRepo = sys.runtime.localForge!.repoDir(REPO);
    const work = mkdtempSync(path.join(os.tmpdir(), 'pw-prefetch-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: work, encoding: 'utf8' });
    git('clone', '-q', forgeRepo, '.');
    writeFileSync(path.join(work, 'NOTES.md'), 'moved\n');
    git('add', '.');
    git('commit', '-qm', 'move the base');
    git('push', '-q', 'origin', 'HEAD:main');
    const newBase = git('rev-parse', 'HEAD').trim();
    rmSync(work, { recursive: true, force: true });

    const second = await create();
    const mirror = sys.runtime.workspace.mirrorDir(REPO);
    const mirrorBase = () =>
      execFileSync('git', ['rev-parse', 'refs/remotes/origin/main'], { cwd: mirror, encoding: 'utf8' }).trim();
    await until('the busy worker has fetched the waiting job’s mirror', () => mirrorBase() === newBase);
    expect((await sys.runtime.store.get(second)).status).toBe('queued');

    release();
    const op1 = await waitForStatus(sys, first, ['awaiting_approval', 'failed']);
    expect(op1.error).toBeUndefined();
    const op2 = await waitForStatus(sys, second, ['awaiting_approval', 'failed']);
    expect(op2.error).toBeUndefined();
    expect(op2.baseSha).toBe(newBase);
    expect(prepared(await sys.runtime.events.list(first))).toMatchObject({ fetched: 'now' });
    expect(prepared(await sys.runtime.events.list(second))).toMatchObject({ fetched: 'ahead' });
  });
});
