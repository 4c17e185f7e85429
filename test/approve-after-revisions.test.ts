import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Operation } from '@pullwright/core';
import { eventually } from '@pullwright/testing/eventually';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel, type Turn, text, tool } from './support/scripted-model.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

const PLAN = text(
  JSON.stringify({
    summary: 'Change the answer',
    steps: [{ title: 'Edit the answer', files: ['src/app.js'], acceptance: 'tests pass' }],
  }),
);
const ACCEPT = text(JSON.stringify({ decision: 'accept', reasons: ['small and tested'] }));
const edit = (from: number, to: number) =>
  tool('edit_file', { path: 'src/app.js', oldText: `answer = ${from}`, newText: `answer = ${to}` });
const done = (comment: string) =>
  text(`Done.\n{"replies":[{"comment":"${comment}","outcome":"fixed","note":"Changed as asked."}]}`);

let sys: TestSystem;
/** The scripts the next jobs play, one per job (the run, then each revision). */
const jobs: Turn[][] = [];

beforeAll(async () => {
  sys = await startTestSystem({ env: { MAX_REPAIRS: '0', MAX_TURNS: '40' } });
  sys.runtime.createProvider = () => new ScriptedModel(jobs.shift() ?? []);
}, 60_000);

afterAll(async () => {
  await sys?.stop();
});

async function createRepo(repo: string): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-revisions-'));
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'revisions', type: 'module', scripts: { test: 'node test.js' } }),
    'src/app.js': 'export const answer = 41;\n',
    'test.js': [
      "import { answer } from './src/app.js';",
      "if (typeof answer !== 'number') { console.log('not ok 1 - answer is a number'); process.exit(1); }",
      "console.log('ok 1 - answer is a number');",
    ].join('\n'),
  };
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  await sys.runtime.localForge!.createRepository(repo, {}, { fromDir: dir });
  rmSync(dir, { recursive: true, force: true });
}

/** The revision `requestId` is back at awaiting approval on a new head (or the operation ended). */
async function revised(id: string, before: string): Promise<Operation> {
  let last: Operation | undefined;
  return eventually(
    () => `the revision of ${id} ends on a new head (status ${last?.status}, head ${last?.pullRequest?.headSha})`,
    async () => {
      last = await sys.runtime.store.get(id);
      if (last.status === 'failed' || last.status === 'cancelled') return last;
      return last.status === 'awaiting_approval' && last.pullRequest?.headSha !== before ? last : undefined;
    },
    { timeoutMs: 60_000 },
  );
}

describe('approve after two revision rounds (issue 26: the approval answered 500 in assessRisk)', () => {
  it('a review-driven revision, then a /revise instruction, then approve: the operation reaches merged', async () => {
    const repo = 'acme/two-revisions';
    await createRepo(repo);
    jobs.push([PLAN, edit(41, 42), text('Edited.'), ACCEPT]);
    const res = await sys.request('POST', '/v1/operations', {
      type: 'implement',
      repo,
      description: 'Change the answer',
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const opened = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    expect(opened.error).toBeUndefined();
    const first = opened.pullRequest!.headSha;

    // Round 1: a reviewer's review asks for a change (what the GitHub review handler enqueues).
    jobs.push([edit(42, 43), done('C7')]);
    await sys.runtime.actions.revise(
      id,
      { user: 'maria', source: 'github' },
      {
        requestId: `review-${id}`,
        feedback: [{ id: 7, kind: 'review', user: 'maria', body: 'Please bump the answer once more.' }],
      },
    );
    const afterReview = await revised(id, first);
    expect(afterReview).toMatchObject({ status: 'awaiting_approval' });
    const second = afterReview.pullRequest!.headSha;

    // Round 2: an instruction through the REST `/revise`.
    jobs.push([edit(43, 44), done('instruction')]);
    const instructed = await sys.request('POST', `/v1/operations/${id}/revise`, { instruction: 'Bump it to 44.' });
    expect(instructed.status).toBe(202);
    const afterInstruction = await revised(id, second);
    expect(afterInstruction).toMatchObject({ status: 'awaiting_approval' });
    expect(afterInstruction.ledger).toHaveLength(2);

    const head = afterInstruction.pullRequest!.headSha;
    const approve = await sys.request('POST', `/v1/operations/${id}/approve`, { headSha: head });
    expect(approve.status, await approve.clone().text()).toBe(200);
    const merged = await waitForStatus(sys, id, ['merged', 'failed']);
    expect(merged).toMatchObject({ status: 'merged', outcome: { code: 'merged' } });
  });
});
