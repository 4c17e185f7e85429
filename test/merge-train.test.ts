import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ReplayProvider, ReplayTranscript } from '@pullwright/agent';
import type { Operation } from '@pullwright/core';
import { verifyVerification } from '@pullwright/pipeline';
import { afterEach, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForOperation } from './support/wait-for-status.ts';

const FIXED_LINE = "  return title.trim().toLowerCase().split(/\\s+/).join('-');";
const BASE_LINE = "  return String(title).toLowerCase().replace(' ', '-');";

/** The conflict revision: redo the fix on the base's version of the line. */
const REDO = ReplayTranscript.parse({
  model: 'replay:redo-after-conflict',
  turns: [
    {
      content: [
        {
          type: 'tool_use',
          name: 'edit_file',
          input: {
            path: 'src/slugify.js',
            oldText: BASE_LINE,
            newText: "  return String(title).trim().toLowerCase().split(/\\s+/).join('-');",
          },
        },
      ],
    },
    { content: [{ type: 'tool_use', name: 'run_check', input: { name: 'test' } }] },
    {
      content: [
        {
          type: 'text',
          text: 'Redid the fix on the new base.\n\n{"replies":[{"comment":"C1","outcome":"fixed","note":"Fix reapplied on top of String(title)."}]}',
        },
      ],
    },
  ],
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Base', '-c', 'user.email=base@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

describe('merge train: the base moved after the approval', () => {
  let sys: TestSystem;
  const clones: string[] = [];
  afterEach(async () => {
    await sys?.stop();
    for (const c of clones.splice(0)) rmSync(c, { recursive: true, force: true });
  });

  const until = (id: string, done: (op: Operation) => boolean, timeoutMs = 45_000) =>
    waitForOperation(sys, id, done, timeoutMs);

  /** A debug operation fixed by the demo transcript, waiting for approval. */
  async function readyOperation(): Promise<{ repo: string; op: Operation }> {
    sys = await startTestSystem();
    const repo = await createSampleRepo(sys.runtime.localForge!);
    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    const { id } = (await res.json()) as { id: string };
    const op = await until(id, (o) => o.status === 'awaiting_approval' || o.status === 'failed');
    expect(op.error).toBeUndefined();
    return { repo, op };
  }

  /** Commits files straight onto the base branch of the forge, as a teammate's merge would. */
  function pushToBase(repo: string, files: Record<string, string>, message: string): string {
    const clone = mkdtempSync(path.join(os.tmpdir(), 'pw-base-'));
    clones.push(clone);
    git(clone, 'clone', '-q', '--branch', 'main', sys.runtime.localForge!.repoDir(repo), '.');
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
      writeFileSync(path.join(clone, file), content);
    }
    git(clone, 'add', '-A');
    git(clone, 'commit', '-q', '-m', message);
    git(clone, 'push', '-q', 'origin', 'main');
    return git(clone, 'rev-parse', 'HEAD').trim();
  }

  async function approve(op: Operation, headSha = op.pullRequest!.headSha): Promise<void> {
    const res = await sys.request('POST', `/v1/operations/${op.id}/approve`, { headSha });
    expect(res.status).toBe(200);
  }

  /** What the dashboard's Verification card reads: a valid signature over a block for `headSha`. */
  async function expectReceiptFor(id: string, headSha: string): Promise<void> {
    const res = await sys.request('GET', `/v1/operations/${id}/verification`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ valid: true, block: { headSha } });
    expect((await sys.runtime.store.get(id)).pullRequest?.headSha).toBe(headSha);
  }

  function baseFile(repo: string, file: string): string {
    return git(sys.runtime.localForge!.repoDir(repo), 'show', `main:${file}`);
  }

  it('merges the base into the branch, re-runs the checks and merges the new head; the base holds both', async () => {
    const { repo, op } = await readyOperation();
    const approvedSha = op.pullRequest!.headSha;
    const baseMove = pushToBase(repo, { 'docs/usage.md': '# Usage\n\nslugify(title)\n' }, 'docs: usage');
    await approve(op);

    const merged = await until(op.id, (o) => o.status === 'merged' || o.status === 'failed');
    expect(merged.error).toBeUndefined();
    expect(merged.status).toBe('merged');

    const events = await sys.runtime.events.list(op.id);
    const update = events.find((e) => e.type === 'base_merged');
    expect(update?.data).toMatchObject({ approvedSha, baseSha: baseMove });
    const newHead = update!.data.headSha as string;
    expect(newHead).not.toBe(approvedSha);
    // The checks ran again on the merged result, and passed there.
    expect(events.filter((e) => e.type === 'check' && e.data.step === 'base_merge')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ name: 'test', passed: true, exitCode: 0 }) }),
    ]);
    expect(merged.headSha).toBe(newHead);
    // The approval still names what the person approved.
    expect(merged.approval?.headSha).toBe(approvedSha);

    const forgeDir = sys.runtime.localForge!.repoDir(repo);
    expect(git(forgeDir, 'rev-list', '--parents', '-n', '1', newHead).trim().split(' ').slice(1)).toEqual([
      approvedSha,
      baseMove,
    ]);
    expect(baseFile(repo, 'src/slugify.js')).toContain(FIXED_LINE.trim());
    expect(baseFile(repo, 'docs/usage.md')).toContain('# Usage');
    expect(git(forgeDir, 'merge-base', '--is-ancestor', newHead, 'main')).toBe('');
    // The receipt was re-signed for the base merge: the dashboard's check is valid for the current head.
    await expectReceiptFor(op.id, newHead);
  });

  it('on a conflict: a revision redoes the change on the base, and the new head waits for a new approval', async () => {
    const { repo, op } = await readyOperation();
    const approvedSha = op.pullRequest!.headSha;
    const original = readFileSync(
      path.resolve(import.meta.dirname, '../apps/cli/demo/sample-repo/src/slugify.js'),
      'utf8',
    );
    pushToBase(
      repo,
      { 'src/slugify.js': original.replace("  return title.toLowerCase().replace(' ', '-');", BASE_LINE) },
      'slugify accepts any value',
    );
    sys.runtime.createProvider = () => new ReplayProvider(REDO);
    await approve(op);

    const revised = await until(
      op.id,
      (o) =>
        (o.status === 'awaiting_approval' && o.headSha !== approvedSha) ||
        o.status === 'failed' ||
        o.status === 'merged',
    );
    expect(revised.error).toBeUndefined();
    expect(revised.status).toBe('awaiting_approval');
    expect(revised.approval).toBeUndefined();

    const events = await sys.runtime.events.list(op.id);
    const statuses = events.filter((e) => e.type === 'status').map((e) => e.data.to);
    expect(statuses).toEqual(['running', 'awaiting_approval', 'approved', 'merging', 'running', 'awaiting_approval']);
    const conflict = events.find((e) => e.type === 'status' && e.data.to === 'running' && e.data.conflict);
    expect(conflict?.data).toMatchObject({ conflict: ['src/slugify.js'], approvalInvalidated: true });
    const revisionId = conflict!.data.revision as string;
    // The revision's push re-signed the receipt for its own head.
    await expectReceiptFor(op.id, revised.pullRequest!.headSha);
    const job = await sys.runtime.queue.queue.getJob(`${op.id}-revise-${revisionId}`);
    expect(job?.data.feedback[0].body).toContain('conflicted in: `src/slugify.js`');
    expect(job?.data.feedback[0].body).toContain(FIXED_LINE.trim());
    // The ledger says who asked: the merge train, not a reviewer on GitHub.
    expect(revised.ledger?.map((r) => [r.requestId, r.state, r.entries[0]?.source])).toEqual([
      [revisionId, 'pushed', 'merge_train'],
    ]);

    // The branch holds the base now; the revision's commit is on top of the train's merge.
    const forgeDir = sys.runtime.localForge!.repoDir(repo);
    const head = revised.pullRequest!.headSha;
    expect(git(forgeDir, 'show', `${head}:src/slugify.js`)).toContain(
      'String(title).trim().toLowerCase().split(/\\s+/)',
    );
    expect(git(forgeDir, 'merge-base', '--is-ancestor', 'main', head)).toBe('');
    expect(revised.checks.map((c) => [c.name, c.passed])).toEqual([['test', true]]);
    expect(await sys.runtime.localForge!.trackingComment(repo, revised.pullRequest!.number)).toContain(
      'Revision pushed',
    );

    // Re-approved, it merges without another base update.
    await approve(revised, head);
    const merged = await until(op.id, (o) => o.status === 'merged' || o.status === 'failed');
    expect(merged.status).toBe('merged');
    expect(baseFile(repo, 'src/slugify.js')).toContain("String(title).trim().toLowerCase().split(/\\s+/).join('-')");
  });

  it('fails with the check output when the checks fail after the base merge, leaving the branch as it was', async () => {
    const { repo, op } = await readyOperation();
    const approvedSha = op.pullRequest!.headSha;
    pushToBase(
      repo,
      {
        'test/extra.test.js':
          "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { slugify } from '../src/slugify.js';\n\ntest('keeps digits apart', () => {\n  assert.equal(slugify('Route 66'), 'route--66');\n});\n",
      },
      'test: digits',
    );
    await approve(op);

    const failed = await until(op.id, (o) => o.status === 'failed' || o.status === 'merged');
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/^checks failed: after merging main \([0-9a-f]{12}\) into the branch/);
    expect(failed.outcome?.code).toBe('checks_failed');
    expect(failed.error).toContain('check "test" exited with 1');
    expect(failed.error).toContain('keeps digits apart');
    expect(await sys.runtime.localForge!.branchSha(repo, op.branch!)).toBe(approvedSha);
    expect(baseFile(repo, 'src/slugify.js')).not.toContain(FIXED_LINE.trim());
  });

  it('signs a verification block into the PR body that the dashboard endpoint verifies, and not once tampered with', async () => {
    const { repo, op } = await readyOperation();
    const forge = sys.runtime.localForge!;
    const pr = await forge.getPullRequest(repo, op.pullRequest!.number);
    const key = sys.runtime.config.verificationKey!;
    const result = verifyVerification(pr.body, key);
    expect(result).toMatchObject({
      valid: true,
      block: {
        operation: op.id,
        baseSha: op.baseSha,
        headSha: op.pullRequest!.headSha,
        checks: [{ name: 'test', command: 'npm test', exitCode: 0, passed: true }],
        secretScan: { passed: true, findings: 0 },
      },
    });
    expect(verifyVerification(pr.body.replace('"exitCode":0', '"exitCode":1'), key).valid).toBe(false);
    await expect
      .poll(() => forge.trackingComment(repo, pr.number))
      .toContain('Pull request opened. Checks: test passed');

    const res = await sys.request('GET', `/v1/operations/${op.id}/verification`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ valid: true, block: { headSha: op.pullRequest!.headSha } });
  });
});
