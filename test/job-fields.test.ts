import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ModelRequest } from '@pullwright/agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel, type Turn, text, tool } from './support/scripted-model.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

/**
 * Issue 21 item 4, through the whole system: an operation's target files, feature context,
 * approval choice and requester identity reach the planner, the locks, the policy and the
 * commit; the file-operation rate tells the model and lets the operation go on.
 */

const PLAN = text(
  JSON.stringify({
    summary: 'Change the answer',
    steps: [{ title: 'Edit the answer', files: ['src/app.js'], acceptance: 'tests pass' }],
  }),
);
const ACCEPT = text(JSON.stringify({ decision: 'accept', reasons: ['small and tested'] }));
const READ = tool('read_file', { path: 'src/app.js' });
const EDIT = tool('edit_file', { path: 'src/app.js', oldText: 'answer = 41', newText: 'answer = 42' });
const LIMIT = /File operation limit reached: at most 3 file operations per minute/;

let sys: TestSystem;
let seq = 0;
const scripts = new Map<string, Turn[]>();
const models = new Map<string, ScriptedModel>();

beforeAll(async () => {
  sys = await startTestSystem({
    env: {
      MAX_REPAIRS: '0',
      FILE_OPS_PER_MINUTE: '3',
      IDENTITIES: JSON.stringify([
        { id: 'alice', role: 'admin', email: 'alice@example.com', api: ['alice'] },
        { id: 'bob', role: 'admin', api: ['bob'] },
      ]),
    },
  });
  sys.runtime.createProvider = (op) => {
    const model = new ScriptedModel(scripts.get(op.repo) ?? []);
    models.set(op.id, model);
    return model;
  };
}, 60_000);

afterAll(async () => sys?.stop());

async function createRepo(turns: Turn[]): Promise<string> {
  const repo = `acme/fields${++seq}`;
  await sys.runtime.localForge!.createRepository(repo, {
    'package.json': JSON.stringify({ name: 'fields', type: 'module', scripts: { test: 'node test.js' } }),
    'src/app.js': 'export const answer = 41;\n',
    'docs/answer.md': 'The answer.\n',
    'test.js': "import { answer } from './src/app.js';\nif (typeof answer !== 'number') process.exit(1);\n",
  });
  scripts.set(repo, turns);
  return repo;
}

async function create(body: Record<string, unknown>): Promise<Response> {
  return sys.request('POST', '/v1/operations', { type: 'implement', description: 'Change the answer', ...body });
}

/** Every message the model was sent, as text (tool results included). */
function seen(request: ModelRequest): string {
  return JSON.stringify(request.messages);
}

describe('operation fields', () => {
  it('target files and the feature context reach the planner and the locks; the commit credits the requester', async () => {
    const repo = await createRepo([PLAN, EDIT, text('Edited.'), ACCEPT]);
    const res = await create({
      repo,
      user: 'alice',
      targetFiles: ['src/app.js', 'docs/answer.md'],
      featureContext: { requirements: 'The answer is 42.', acceptanceCriteria: ['answer is 42', 'tests pass'] },
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    expect(op.error).toBeUndefined();
    expect(op).toMatchObject({ targetFiles: ['src/app.js', 'docs/answer.md'], priority: 'medium' });
    // No POLICY_FILE: nothing may be auto-approved, so a person must approve.
    expect(op.approvalRequired).toBe(true);

    const planner = seen(models.get(id)!.requests[0]!);
    expect(planner).toContain('- docs/answer.md');
    expect(planner).toContain('The answer is 42.');
    expect(planner).toContain('- answer is 42');
    const events = await sys.runtime.events.list(id);
    const locked = events.find((e) => e.type === 'locks_acquired');
    // The declared file the plan did not name is locked too, before the coder's first edit.
    expect(locked?.data.files).toEqual(expect.arrayContaining(['src/app.js', 'docs/answer.md']));
    const firstEdit = events.findIndex((e) => e.type === 'tool' && e.data.name === 'edit_file');
    expect(firstEdit).toBeGreaterThan(events.indexOf(locked!));

    const message = execFileSync(
      'git',
      ['--git-dir', sys.runtime.localForge!.repoDir(repo), 'log', '-1', '--format=%B', op.branch!],
      { encoding: 'utf8' },
    );
    expect(message).toMatch(/^Co-authored-by: alice <alice@example\.com>$/m);
    expect(message).toMatch(/^Pullwright-Operation: /m);
  });

  it('a requester without an email gets no trailer', async () => {
    const repo = await createRepo([PLAN, EDIT, text('Edited.'), ACCEPT]);
    const { id } = (await (await create({ repo, user: 'bob' })).json()) as { id: string };
    const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    const message = execFileSync(
      'git',
      ['--git-dir', sys.runtime.localForge!.repoDir(repo), 'log', '-1', '--format=%B', op.branch!],
      { encoding: 'utf8' },
    );
    expect(message).toContain('Pullwright-Operation: ');
    expect(message).not.toContain('Co-authored-by');
  });

  it('refuses bad fields with a 400 naming the field', async () => {
    const repo = await createRepo([]);
    const cases: [Record<string, unknown>, string][] = [
      [{ priority: 'urgent' }, 'priority'],
      [{ targetFiles: ['../etc/passwd'] }, 'targetFiles.0'],
      [{ targetFiles: ['/etc/passwd'] }, 'targetFiles.0'],
      [{ featureContext: { requirements: 'x', acceptanceCriteria: [] } }, 'featureContext.acceptanceCriteria'],
      [{ featureContext: { requirements: '', acceptanceCriteria: ['a'] } }, 'featureContext.requirements'],
      // The service policy allows no auto-approval: the request cannot waive a person's approval.
      [{ approvalRequired: false }, 'approvalRequired'],
    ];
    for (const [body, field] of cases) {
      const res = await create({ repo, user: 'alice', ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      const answer = (await res.json()) as { error: { fields?: { field: string }[] } };
      expect((answer.error.fields ?? []).map((i) => i.field.replace(/^body\./, ''))).toContain(field);
    }
  });

  it('a target file the workspace gate refuses ends the operation before any model call', async () => {
    const repo = await createRepo([PLAN]);
    const { id } = (await (await create({ repo, user: 'alice', targetFiles: ['.env'] })).json()) as { id: string };
    const op = await waitForStatus(sys, id, ['failed', 'awaiting_approval']);
    expect(op.status).toBe('failed');
    expect(op.error).toMatch(/^targetFiles: \.env is refused/);
    expect(models.get(id)?.requests ?? []).toHaveLength(0);

    // A protected path (lockfiles, by default) is refused the same way.
    const locked = (await (await create({ repo, user: 'alice', targetFiles: ['package-lock.json'] })).json()) as {
      id: string;
    };
    const refused = await waitForStatus(sys, locked.id, ['failed', 'awaiting_approval']);
    expect(refused.error).toBe('targetFiles: package-lock.json is refused: a protected path no operation may change');
    expect(models.get(locked.id)?.requests ?? []).toHaveLength(0);
  });

  it('over the file-operation rate the model is told, and the operation goes on to its PR', async () => {
    // FILE_OPS_PER_MINUTE=3: read, edit, read pass; the fourth is refused with a reason.
    // The model's view is read as each turn is asked for: the conversation grows in place.
    let before = '';
    let after = '';
    const repo = await createRepo([
      PLAN,
      READ,
      EDIT,
      READ,
      async (request) => {
        before = seen(request);
        return READ;
      },
      async (request) => {
        after = seen(request);
        return text('Edited.');
      },
      ACCEPT,
    ]);
    const { id } = (await (await create({ repo, user: 'alice' })).json()) as { id: string };
    const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    expect(op.error).toBeUndefined();
    expect(op.status).toBe('awaiting_approval');
    // The turn after the fourth file operation carries the refusal; the one before does not.
    expect(before).toContain('export const answer = 42;');
    expect(before).not.toMatch(LIMIT);
    expect(after).toMatch(LIMIT);
    expect(await sys.runtime.localForge!.branchSha(repo, op.branch!)).toBe(op.pullRequest!.headSha);
  });
});

describe('approvalRequired where the policy allows auto-approval', () => {
  let auto: TestSystem;
  let scratch: string;
  const DOCS_PLAN = text(
    JSON.stringify({
      summary: 'Document the answer',
      steps: [{ title: 'Edit the doc', files: ['docs/answer.md'], acceptance: 'documented' }],
    }),
  );
  const DOCS_EDIT = tool('edit_file', { path: 'docs/answer.md', oldText: 'The answer.', newText: 'The answer is 41.' });

  beforeAll(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'pw-auto-'));
    const policyFile = path.join(scratch, 'service-policy.yml');
    writeFileSync(policyFile, 'auto_approve: { enabled: true }\n');
    auto = await startTestSystem({ env: { MAX_REPAIRS: '0', POLICY_FILE: policyFile } });
    auto.runtime.createProvider = () => new ScriptedModel([DOCS_PLAN, DOCS_EDIT, text('Documented.'), ACCEPT]);
    const files = {
      'package.json': JSON.stringify({ name: 'docs', type: 'module', scripts: { test: 'node -e 0' } }),
      'docs/answer.md': 'The answer.\n',
    };
    // The effective policy is the service's and the repository's: both must allow auto-approval.
    for (const repo of ['acme/docs', 'acme/docs-kept'])
      await auto.runtime.localForge!.createRepository(repo, {
        ...files,
        '.pullwright.yml': 'auto_approve: { enabled: true }\n',
      });
    await auto.runtime.localForge!.createRepository('acme/strict', files);
  }, 60_000);

  afterAll(async () => {
    await auto?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  async function run(approvalRequired: boolean, repo = 'acme/docs'): Promise<string> {
    const res = await auto.request('POST', '/v1/operations', {
      type: 'implement',
      repo,
      description: 'Document the answer',
      approvalRequired,
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { id: string }).id;
  }

  it('false lets the auto-approval rules merge a docs change; true keeps it for a person', async () => {
    const waived = await run(false);
    // The PR opens (awaiting_approval), then the policy approves it and the merge job runs.
    const merged = await waitForStatus(auto, waived, ['merged', 'failed']);
    expect(merged.status).toBe('merged');
    expect(merged.approvalRequired).toBe(false);

    const kept = await run(true, 'acme/docs-kept');
    const waiting = await waitForStatus(auto, kept, ['awaiting_approval', 'merged', 'failed']);
    expect(waiting.status).toBe('awaiting_approval');
    expect(waiting.approvalRequired).toBe(true);
    // The PR opens first; the auto-approval decision is the event after it.
    await expect
      .poll(async () => (await auto.runtime.events.list(kept)).some((e) => e.type === 'auto_approval'), {
        timeout: 10_000,
      })
      .toBe(true);
    const decision = (await auto.runtime.events.list(kept)).find((e) => e.type === 'auto_approval');
    expect((await auto.runtime.store.get(kept)).status).toBe('awaiting_approval');
    expect(decision?.data).toEqual({
      approved: false,
      reasons: ['the request asked for a person to approve (approvalRequired)'],
    });
  });

  it('false becomes true at claim when the repository policy allows no auto-approval', async () => {
    const id = await run(false, 'acme/strict');
    const op = await waitForStatus(auto, id, ['awaiting_approval', 'merged', 'failed']);
    expect(op).toMatchObject({ status: 'awaiting_approval', approvalRequired: true });
    const claim = (await auto.runtime.events.list(id)).find((e) => e.type === 'step' && e.data.step === 'policy');
    expect(claim?.data).toMatchObject({ autoApprove: false, approvalRequired: true });
  });
});
