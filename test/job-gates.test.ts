import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ModelProvider } from '@pullwright/agent';
import { type Operation, PullwrightError } from '@pullwright/core';
import { sampleSecret } from '@pullwright/security/credential-samples';
import { eventually } from '@pullwright/testing/eventually';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Reply, ScriptedModel, type Turn, text, tool } from './support/scripted-model.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

/**
 * Every gate on every path: the same hostile or broken turn of the model, played in a run
 * and in each kind of revision (a review, a `/pullwright` comment, a merge-train conflict),
 * must meet the same gate — and each row checks what reached the forge and the reason the
 * operation shows.
 */

// Drawn at run time: no secret-shaped literal (whole or in pieces) sits in this repository.
const AWS_KEY = sampleSecret('aws-access-token', 31);
const HOST_MARKER = `hostonly_${Math.random().toString(36).slice(2, 10)}`;

const PLAN = text(
  JSON.stringify({
    summary: 'Change the answer',
    steps: [{ title: 'Edit the answer', files: ['src/app.js'], acceptance: 'tests pass' }],
  }),
);
const ACCEPT = text(JSON.stringify({ decision: 'accept', reasons: ['small and tested'] }));
const DONE = text('Done.\n{"replies":[{"comment":"C1","outcome":"fixed","note":"Changed as asked."}]}');
const GOOD_EDIT = tool('edit_file', { path: 'src/app.js', oldText: 'answer = 41', newText: 'answer = 42' });
const GOOD_EDIT_AGAIN = tool('edit_file', { path: 'src/app.js', oldText: 'answer = 42', newText: 'answer = 43' });

const COLLEAGUE = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Colleague',
  GIT_AUTHOR_EMAIL: 'colleague@example.com',
  GIT_COMMITTER_NAME: 'Colleague',
  GIT_COMMITTER_EMAIL: 'colleague@example.com',
};

let sys: TestSystem;
let hostDir: string;
let seq = 0;
const models: ScriptedModel[] = [];
/** The scripts each repository's next jobs play, one per job (the run, then its revision). */
const scripts = new Map<string, Turn[][]>();
function script(repo: string, ...jobs: Turn[][]): void {
  scripts.set(repo, [...(scripts.get(repo) ?? []), ...jobs]);
}

beforeAll(async () => {
  hostDir = mkdtempSync(path.join(os.tmpdir(), 'pw-host-'));
  writeFileSync(path.join(hostDir, 'host.js'), `export function ${HOST_MARKER}() {}\n`);
  sys = await startTestSystem({ env: { MAX_REPAIRS: '0', MAX_TURNS: '40' } });
  sys.runtime.createProvider = (op) => {
    const model = new ScriptedModel(scripts.get(op.repo)?.shift() ?? []);
    models.push(model);
    return model;
  };
}, 60_000);

afterAll(async () => {
  await sys?.stop();
  rmSync(hostDir, { recursive: true, force: true });
});

/**
 * A repository whose `test` writes a file holding a key when `src/trigger` exists (a file a
 * check writes), whose `lint` fails on `var` (and on `lint-debt.txt`, a red lint on the base),
 * with a symlink to a host file and a policy that protects `config/**`.
 */
async function createRepo(options: { lintRedOnBase?: boolean; files?: Record<string, string> } = {}): Promise<string> {
  const repo = `acme/gates${++seq}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-gates-'));
  const files: Record<string, string> = {
    'package.json': JSON.stringify({
      name: 'gates',
      type: 'module',
      scripts: { lint: 'node lint.js', test: 'node test.js' },
    }),
    'src/app.js': 'export const answer = 41;\n',
    'config/app.json': '{}\n',
    '.pullwright.yml': 'protected_paths: ["config/**"]\n',
    'lint.js': [
      "import { existsSync, readFileSync } from 'node:fs';",
      "if (existsSync('lint-debt.txt')) { console.log('lint-debt.txt: 1 problem (old)'); process.exit(1); }",
      "if (readFileSync('src/app.js', 'utf8').includes('var ')) { console.log('src/app.js: no-var'); process.exit(1); }",
    ].join('\n'),
    'test.js': [
      "import { existsSync, mkdirSync, writeFileSync } from 'node:fs';",
      "import { answer } from './src/app.js';",
      "if (typeof answer !== 'number') { console.log('not ok 1 - answer is a number'); process.exit(1); }",
      `if (existsSync('src/trigger')) { mkdirSync('out', { recursive: true }); writeFileSync('out/leak.txt', 'aws_access_key_id = ' + ${JSON.stringify(AWS_KEY.slice(0, 4))} + ${JSON.stringify(AWS_KEY.slice(4))} + '\\n'); }`,
      // A key that reaches the branch base64-encoded, and a .env file: both written by a check.
      `if (existsSync('src/trigger-b64')) writeFileSync('data.txt', Buffer.from('aws_access_key_id = ' + ${JSON.stringify(AWS_KEY.slice(0, 4))} + ${JSON.stringify(AWS_KEY.slice(4))}).toString('base64') + '\\n');`,
      "if (existsSync('src/trigger-env')) writeFileSync('.env', 'DEBUG=1\\n');",
      "console.log('ok 1 - answer is a number');",
    ].join('\n'),
    ...(options.lintRedOnBase ? { 'lint-debt.txt': 'old\n' } : {}),
    ...options.files,
  };
  for (const [file, content] of Object.entries(files)) {
    const abs = path.join(dir, file);
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
  symlinkSync(path.join(hostDir, 'host.js'), path.join(dir, 'src/host.js'));
  await sys.runtime.localForge!.createRepository(repo, {}, { fromDir: dir });
  rmSync(dir, { recursive: true, force: true });
  return repo;
}

async function createOperation(repo: string): Promise<string> {
  const res = await sys.request('POST', '/v1/operations', {
    type: 'implement',
    repo,
    description: 'Change the answer',
    budget: { turns: 8 },
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

/** A whole run to an open PR, with a change the gates let through. */
async function openPullRequest(repo: string): Promise<Operation> {
  script(repo, [PLAN, GOOD_EDIT, text('Edited.'), ACCEPT]);
  const id = await createOperation(repo);
  const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
  expect(op.error).toBeUndefined();
  return op;
}

/** A commit someone else pushes to `branch` on the forge (on top of it, or of main where it does not exist yet). */
async function pushForeignCommit(repo: string, branch: string): Promise<string> {
  const forge = sys.runtime.localForge!;
  const dir = forge.repoDir(repo);
  const parent = (await forge.branchSha(repo, branch)) ?? (await forge.branchSha(repo, 'main'))!;
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: COLLEAGUE }).trim();
  const sha = git('commit-tree', `${parent}^{tree}`, '-p', parent, '-m', "A colleague's commit");
  git('update-ref', `refs/heads/${branch}`, sha);
  return sha;
}

type Path = 'run' | 'review' | 'comment' | 'conflict';

/** Starts a revision of `op` the way each source does (the GitHub handlers call `actions.revise`). */
async function revise(op: Operation, kind: Exclude<Path, 'run'>): Promise<void> {
  const requestId = `${kind}-${op.id}`;
  if (kind === 'conflict') {
    // The merge train enqueues it directly (no person to authorize) and hands the operation over.
    await sys.runtime.queue.add('revise', {
      opId: op.id,
      requestId: `merge-conflict-${op.id.slice(0, 8)}`,
      feedback: [{ id: 0, kind: 'issue_comment', user: 'pullwright', body: 'Redo the change on the new base.' }],
    });
    return;
  }
  await sys.runtime.actions.revise(
    op.id,
    { user: 'maria', source: 'github' },
    {
      requestId,
      feedback: [
        kind === 'review'
          ? { id: 7, kind: 'review', user: 'maria', body: 'Please bump the answer once more.' }
          : { id: 8, kind: 'issue_comment', user: 'maria', body: 'bump the answer once more' },
      ],
    },
  );
}

interface Outcome {
  op: Operation;
  /** What the forge shows afterwards: the branch head (undefined: no branch) and whether it moved. */
  branchHead: string | undefined;
  moved: boolean;
  model: ScriptedModel;
}

/**
 * Plays `turns` as the model's work on `path`: as the coder of a run (after the plan, with
 * the reviewer's accept after), or as the coder of a revision of an open PR.
 */
async function play(pathKind: Path, turns: Turn[], repoOptions: { lintRedOnBase?: boolean } = {}): Promise<Outcome> {
  const repo = await createRepo(repoOptions);
  const forge = sys.runtime.localForge!;
  if (pathKind === 'run') {
    script(repo, [PLAN, ...turns, ACCEPT]);
    const id = await createOperation(repo);
    const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed', 'cancelled']);
    const branch = op.branch ? await forge.branchSha(repo, op.branch) : undefined;
    return { op, branchHead: branch, moved: branch !== undefined, model: models.at(-1)! };
  }
  const opened = await openPullRequest(repo);
  const before = opened.pullRequest!.headSha;
  script(repo, turns);
  await revise(opened, pathKind);
  const op = await waitForRevision(opened);
  const head = await forge.branchSha(repo, opened.branch!);
  return { op, branchHead: head, moved: head !== before, model: models.at(-1)! };
}

/** The revision's end: back to awaiting approval (new head, or the failure recorded), or cancelled/failed. */
async function waitForRevision(opened: Operation): Promise<Operation> {
  let last: Operation | undefined;
  return eventually(
    () => `the revision of ${opened.id} ends (it is ${last?.status})`,
    async () => {
      const events = await sys.runtime.events.list(opened.id);
      const revised = events.filter((e) => e.type === 'status' && e.data.revision !== undefined);
      const back = revised.find((e) => e.data.to === 'awaiting_approval');
      last = await sys.runtime.store.get(opened.id);
      if (back && last.status === 'awaiting_approval') return last;
      return last.status === 'failed' || last.status === 'cancelled' ? last : undefined;
    },
    { timeoutMs: 60_000 },
  );
}

/** The reason the operation shows: its error (a run), or the revision's failure (a revision). */
async function reasonOf(op: Operation): Promise<string> {
  if (op.error) return op.error;
  const events = await sys.runtime.events.list(op.id);
  const failed = events.filter((e) => e.type === 'status' && typeof e.data.revisionFailed === 'string').at(-1);
  return String(failed?.data.revisionFailed ?? '');
}

/** The run refuses with `reason`; a revision hands the PR back, branch unchanged, with the same reason. */
async function expectRefused(out: Outcome, pathKind: Path, reason: RegExp): Promise<void> {
  expect(out.moved).toBe(false);
  if (pathKind === 'run') {
    expect(out.op.status).toBe('failed');
    expect(out.branchHead).toBeUndefined();
    expect(out.op.pullRequest).toBeUndefined();
  } else {
    expect(out.op.status).toBe('awaiting_approval');
  }
  expect(await reasonOf(out.op)).toMatch(reason);
}

/** A tool result the model was sent, found by the text it contains. */
function toolResultText(model: ScriptedModel): string {
  return model.requests.map((r) => JSON.stringify(r.messages)).join('\n');
}

const PATHS: Path[] = ['run', 'review', 'comment', 'conflict'];

describe.each(PATHS)('gates on the %s path', (pathKind) => {
  it('a traversal read is refused to the model and nothing is pushed', async () => {
    const out = await play(pathKind, [
      tool('read_file', { path: '../../../../etc/passwd' }),
      text('Nothing to change.'),
    ]);
    expect(toolResultText(out.model)).toContain('path refused (traversal)');
    expect(toolResultText(out.model)).not.toContain('root:x:0:0');
    expect(out.moved).toBe(false);
    if (pathKind === 'run') expect(out.op.error).toBe('no changes: the model made no changes');
    else {
      // A revision that changed nothing leaves the head's checks standing: its verify step says
      // so, never a `passed`-less event every view reads as "Checks failed".
      const events = await sys.runtime.events.list(out.op.id);
      const verified = events.filter(
        (e) => e.type === 'step' && e.data.step === 'verify' && e.data.state === 'finished',
      );
      expect(verified.at(-1)?.data).toMatchObject({ passed: true, unchanged: true, files: [] });
    }
  });

  it('a symlink out of the worktree is read neither by search nor by the repository map', async () => {
    const out = await play(pathKind, [tool('search', { pattern: HOST_MARKER }), text('Nothing to change.')]);
    const sent = toolResultText(out.model);
    expect(sent).toContain(`No matches for /${HOST_MARKER}/`);
    // The marker appears only where the model wrote it (the search pattern) and in the
    // answer that quotes the pattern: never from the host file, and not in the repository map.
    const occurrences = sent.split(HOST_MARKER).length - 1;
    const quoted =
      sent.split(`"pattern":"${HOST_MARKER}"`).length - 1 + (sent.split(`No matches for /${HOST_MARKER}/`).length - 1);
    expect(occurrences).toBe(quoted);
    expect(out.moved).toBe(false);
  });

  it.each([
    ['a default protected path', 'package-lock.json'],
    ["the policy's protected path", 'config/app.json'],
  ])('a write to %s is refused', async (_what, file) => {
    const out = await play(pathKind, [tool('write_file', { path: file, content: '{"x":1}\n' }), text('Tried.')]);
    expect(toolResultText(out.model)).toContain('path refused (protected)');
    expect(out.moved).toBe(false);
  });

  it('a write that adds a secret is refused before it reaches the disk', async () => {
    const out = await play(pathKind, [
      tool('write_file', { path: 'src/keys.js', content: `export const key = '${AWS_KEY}';\n` }),
      text('Tried.'),
    ]);
    expect(toolResultText(out.model)).toMatch(/write refused: it would add a secret/);
    expect(out.moved).toBe(false);
  });

  it('a secret in the final diff (written by a check) blocks the push', async () => {
    const out = await play(pathKind, [
      tool('write_file', { path: 'src/trigger', content: 'on\n' }),
      tool('run_check', { name: 'test' }),
      text('Done.\n{"replies":[{"comment":"C1","outcome":"fixed","note":"x"}]}'),
    ]);
    await expectRefused(out, pathKind, /^commit blocked: the change adds \d+ secret\(s\): .*out\/leak\.txt/);
    expect(JSON.stringify(out.op)).not.toContain(AWS_KEY);
  });

  it.each([
    ['a key base64-encoded in a file', 'src/trigger-b64', /aws.* in data\.txt:1 .*\[base64\]/],
    ['a .env file, whoever wrote it', 'src/trigger-env', /secret-file in \.env/],
  ])('what the push would send is scanned: %s blocks it', async (_what, trigger, finding) => {
    const out = await play(pathKind, [
      tool('write_file', { path: trigger, content: 'on\n' }),
      tool('run_check', { name: 'test' }),
      text('Done.\n{"replies":[{"comment":"C1","outcome":"fixed","note":"x"}]}'),
    ]);
    await expectRefused(out, pathKind, /^commit blocked: the change adds \d+ secret\(s\)/);
    expect(await reasonOf(out.op)).toMatch(finding);
  });

  it('a check red on the base only is pre-existing: the change is published', async () => {
    const edit = pathKind === 'run' ? GOOD_EDIT : GOOD_EDIT_AGAIN;
    const out = await play(pathKind, [edit, DONE], { lintRedOnBase: true });
    expect(out.op.status).toBe('awaiting_approval');
    expect(out.moved).toBe(true);
    expect(out.op.pullRequest?.headSha).toBe(out.branchHead);
    expect(out.op.checks.find((c) => c.name === 'lint')).toMatchObject({ passed: false, preExisting: true });
  });

  it('a new red check is not published', async () => {
    const out = await play(pathKind, [
      tool('edit_file', { path: 'src/app.js', oldText: 'export const', newText: 'var unused = 1;\nexport const' }),
      DONE,
    ]);
    await expectRefused(out, pathKind, /^checks failed: [\s\S]*check "lint" exited with 1/);
  });

  it("the budget belongs to the operation: a job cannot spend past the operation's limit", async () => {
    // Distinct inputs: the stuck detector must not end the loop first.
    const distinct = Array.from({ length: 12 }, (_, i) =>
      tool('read_file', { path: 'src/app.js', startLine: 1, endLine: i + 1 }),
    );
    const out = await play(pathKind, distinct);
    await expectRefused(out, pathKind, /^budget exhausted: turn budget used \(8 of 8 model calls\)/);
    // The run spent 4 of the 8 turns before the revision: the revision had 4 left, not 8.
    expect(out.op.usage.modelCalls).toBe(8);
  });

  it("a push onto commits this operation did not make is refused: the colleague's commit stays", async () => {
    const edit = pathKind === 'run' ? GOOD_EDIT : GOOD_EDIT_AGAIN;
    let theirs = '';
    const colleaguePushes = async (): Promise<Reply> => {
      const op = (await sys.runtime.store.list({})).find((o) => o.status === 'running')!;
      theirs = await pushForeignCommit(op.repo, op.branch!);
      return DONE;
    };
    const out = await play(pathKind, [edit, colleaguePushes]);
    expect(out.branchHead).toBe(theirs);
    expect(out.op.status).toBe(pathKind === 'run' ? 'failed' : 'awaiting_approval');
    expect(await reasonOf(out.op)).toMatch(
      new RegExp(`has commits this operation did not make \\(${theirs.slice(0, 12)}\\); not overwriting them`),
    );
  });

  it('a stale fencing token at push is refused: the lock was lost to another operation', async () => {
    const edit = pathKind === 'run' ? GOOD_EDIT : GOOD_EDIT_AGAIN;
    const steal = async (): Promise<Reply> => {
      const op = (await sys.runtime.store.list({})).find((o) => o.status === 'running')!;
      // Our lease ran out (release stands in for the expiry) and another operation took the file.
      await sys.runtime.locks.files.release(op.repo, op.id);
      const grant = await sys.runtime.locks.files.acquire(op.repo, ['src/app.js'], { opId: 'intruder' });
      expect(grant.ok).toBe(true);
      return DONE;
    };
    const out = await play(pathKind, [edit, steal]);
    await expectRefused(
      out,
      pathKind,
      /the lock on src\/app\.js was lost \(fencing token \d+ is stale, now held by operation intruder/,
    );
    await sys.runtime.locks.files.release(out.op.repo, 'intruder');
  });
});

describe('fail closed on cost', () => {
  it('a model with no known price stops the operation, naming LLM_PRICES', async () => {
    const repo = await createRepo();
    const unpriced: ModelProvider = {
      name: 'unpriced',
      complete: async () => ({
        content: PLAN,
        stopReason: 'end_turn',
        usage: { inputTokens: 10, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
        model: 'house-model-7b',
      }),
    };
    const original = sys.runtime.createProvider;
    sys.runtime.createProvider = () => unpriced;
    try {
      const id = await createOperation(repo);
      const op = await waitForStatus(sys, id, ['failed', 'awaiting_approval']);
      expect(op.error).toMatch(
        /cost budget cannot be kept: model "house-model-7b" has no known price; set its price in LLM_PRICES/,
      );
      expect(op.usage.modelCalls).toBe(1);
    } finally {
      sys.runtime.createProvider = original;
    }
  });
});

describe('crash-resume', () => {
  it("a job retried after a transient error continues the operation's spend, not a fresh budget", async () => {
    const repo = await createRepo();
    const reads = (n: number) =>
      Array.from({ length: n }, (_, i) => tool('read_file', { path: 'src/app.js', startLine: 1, endLine: i + 1 }));
    const outage = async (): Promise<Reply> => {
      throw new PullwrightError('unavailable', 'the model API is overloaded');
    };
    script(repo, [PLAN, ...reads(1), outage], reads(20));
    const id = await createOperation(repo);
    const op = await waitForStatus(sys, id, ['failed', 'awaiting_approval'], 60_000);
    expect(op.error).toMatch(/^budget exhausted: turn budget used \(8 of 8 model calls\)/);
    expect(op.usage.modelCalls).toBe(8);
    // The retried job was left 6 calls: the first attempt's 2 counted against the operation.
    expect(models.at(-1)!.requests).toHaveLength(6);
  });
});

describe('crash-resume after the agent', () => {
  it('a job retried after its push skips the agent (agent_done), pushes nothing again and opens one PR', async () => {
    const repo = await createRepo();
    script(repo, [PLAN, GOOD_EDIT, text('Edited.'), ACCEPT]);
    const store = sys.runtime.store;
    const patch = store.patch.bind(store);
    let outages = 0;
    // Redis drops the connection as the push is recorded: the job runs again from its checkpoint.
    store.patch = (async (...args: Parameters<typeof store.patch>) => {
      const [, fields] = args;
      if (outages === 0 && 'headSha' in fields) {
        outages++;
        throw new Error('Connection is closed.');
      }
      return patch(...args);
    }) as typeof store.patch;
    const created = models.length;
    try {
      const id = await createOperation(repo);
      const op = await waitForStatus(sys, id, ['failed', 'awaiting_approval'], 60_000);
      expect(op.error).toBeUndefined();
      expect(outages).toBe(1);
      expect(op.checkpoints).toEqual(['agent_done']);
      // One model for the operation: the retry did not ask it again.
      expect(models.length - created).toBe(1);
      expect(op.usage.modelCalls).toBe(4);
      const forge = sys.runtime.localForge!;
      expect(await forge.branchSha(repo, op.branch!)).toBe(op.pullRequest!.headSha);
      expect((await forge.findOpenPullRequest(repo, op.branch!))?.number).toBe(op.pullRequest!.number);
      const agentSteps = (await sys.runtime.events.list(id)).filter(
        (e) => e.type === 'step' && e.data.step === 'agent' && e.data.state === 'finished',
      );
      expect(agentSteps.map((e) => e.data.resumed ?? false)).toEqual([false, true]);
    } finally {
      store.patch = patch;
    }
  });
});

describe('documented knobs', () => {
  it("branches.prefix names the operation's branch", async () => {
    const repo = await createRepo({ files: { '.pullwright.yml': 'branches: { prefix: "agent/bots/" }\n' } });
    const op = await openPullRequest(repo);
    expect(op.branch).toMatch(new RegExp(`^agent/bots/${op.id}-change-the-answer$`));
    expect(await sys.runtime.localForge!.branchSha(repo, op.branch!)).toBe(op.pullRequest!.headSha);
  });

  it('a hung check takes its own timeout_ms, not CHECK_TIMEOUT_MS', async () => {
    const repo = await createRepo({
      files: {
        '.pullwright.yml': 'checks:\n  test: node test.js\n  lint: { command: "node lint.js", timeout_ms: 1500 }\n',
        // Hangs only once the model has written src/hang: the baseline is green.
        'lint.js': "import { existsSync } from 'node:fs';\nif (existsSync('src/hang')) setInterval(() => {}, 1000);\n",
      },
    });
    script(repo, [PLAN, tool('write_file', { path: 'src/hang', content: 'x\n' }), text('Done.'), ACCEPT]);
    const id = await createOperation(repo);
    const op = await waitForStatus(sys, id, ['failed', 'awaiting_approval']);
    expect(op.error).toMatch(/^checks failed: .*lint[\s\S]*check "lint" timed out/);
    const lint = (await sys.runtime.events.list(id)).filter((e) => e.type === 'check' && e.data.name === 'lint').at(-1);
    // The 1.5 s limit, plus what killing the process tree takes; far below the 60 s the test system allows.
    expect(Number(lint?.data.durationMs)).toBeLessThan(15_000);
  });
});

describe('a revision is judged against the head it revises', () => {
  it('a check the PR made green (red on the base) going red again is not published', async () => {
    const repo = await createRepo({ lintRedOnBase: true });
    // The run fixes the base's lint debt: lint is green on the PR's head.
    script(repo, [PLAN, tool('delete_file', { path: 'lint-debt.txt' }), text('Cleared the lint debt.'), ACCEPT]);
    const id = await createOperation(repo);
    const opened = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    expect(opened.checks.find((c) => c.name === 'lint')).toMatchObject({ passed: true });
    const before = opened.pullRequest!.headSha;
    // The revision brings the debt back: the same failure as on the base, yet a regression of the PR.
    script(repo, [tool('write_file', { path: 'lint-debt.txt', content: 'old\n' }), DONE]);
    await revise(opened, 'review');
    const back = await waitForRevision(opened);
    expect(back.pullRequest!.headSha).toBe(before);
    // Caught inside the solve (where a fixer round would get it; this system allows none), not only at verify.
    expect(await reasonOf(back)).toMatch(
      /^checks failed: checks still failing after 0 repair rounds: lint\ncheck "lint" exited with 1/,
    );
  });
});
