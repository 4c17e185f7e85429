import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ReplayProvider, ReplayTranscript } from '@pullwright/agent';
import type { Operation } from '@pullwright/core';
import { verifyVerification } from '@pullwright/pipeline';
import { beforeEach, describe, expect, it } from 'vitest';
import { useGitHubFixture } from './support/fake-github/github-fixture.ts';
import type { GitHubTestSystem } from './support/fake-github/github-test-system.ts';
import type { FakeGitHub } from './support/fake-github.ts';

const run = promisify(execFile);

/** The reviewer asks for the doc comment to say titles are trimmed; the revision says so. */
const DOC_REVISION = ReplayTranscript.parse({
  model: 'replay:revise-doc-comment',
  turns: [
    {
      content: [
        {
          type: 'tool_use',
          name: 'edit_file',
          input: {
            path: 'src/slugify.js',
            oldText: '/** Turns a title into a URL slug',
            newText: '/** Turns a title (trimmed first) into a URL slug',
          },
        },
      ],
    },
    {
      content: [
        {
          type: 'text',
          text: 'The comment now says titles are trimmed.\n\n{"replies":[{"comment":"C1","outcome":"fixed","note":"The doc comment says so."}]}',
        },
      ],
    },
  ],
});

describe('signed commits against a GHES-style server', () => {
  const fx = useGitHubFixture({ repoPrefix: 'signed', collaborators: { maria: 'write' } });
  let gh: FakeGitHub;
  let sys: GitHubTestSystem;
  let repo: string;
  beforeEach(() => {
    ({ gh, sys, repo } = fx);
  });

  async function openOperation(): Promise<Operation> {
    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    return fx.until(id, (o) => o.status !== 'queued' && o.status !== 'running');
  }

  /** The commits of `head` that `base` does not have, as the fake's bare repository holds them. */
  async function commitsOf(base: string, head: string): Promise<string[]> {
    const { stdout } = await run('git', ['rev-list', `${base}..${head}`], { cwd: gh.repoDir(repo) });
    return stdout.split('\n').filter(Boolean);
  }

  it('a /debug PR, its revision and its base merge are all Verified, and a branch rule requiring signatures merges it', async () => {
    gh.requireSignedCommits(repo, 'main');
    const op = await openOperation();
    expect(op.error).toBeUndefined();
    expect(op.status).toBe('awaiting_approval');
    const first = op.pullRequest!.headSha;
    expect(await gh.branchSha(repo, op.branch!)).toBe(first);
    const created = await commitsOf('main', first);
    expect(created.length).toBeGreaterThan(0);
    expect(created.filter((sha) => !gh.isVerified(sha))).toEqual([]);
    // Same message and trailers as a push would have carried.
    expect(await gh.commitMessage(repo, first)).toContain(`Pullwright-Operation: ${op.id}`);
    expect(op.commitSignature).toEqual({ state: 'forge' });
    const [pull] = gh.pulls(repo);
    expect(pull!.body).toContain('signed by it (Verified)');
    expect(verifyVerification(pull!.body, sys.runtime.config.verificationKey!)).toMatchObject({
      valid: true,
      block: { headSha: first, commits: { signature: 'forge' } },
    });

    sys.runtime.createProvider = () => new ReplayProvider(DOC_REVISION);
    await gh.submitReview(repo, pull!.number, {
      user: 'maria',
      state: 'CHANGES_REQUESTED',
      comments: [{ path: 'src/slugify.js', line: 1, body: 'Say that titles are trimmed.' }],
    });
    const revised = await fx.until(op.id, (o) => o.status === 'awaiting_approval' && o.pullRequest?.headSha !== first);
    expect(revised.error).toBeUndefined();
    const second = revised.pullRequest!.headSha;
    // No force: the revision's commit sits on the reviewed one, and it is Verified too.
    expect(await commitsOf(first, second)).toHaveLength(1);
    expect(gh.isVerified(second)).toBe(true);
    expect(await gh.commitMessage(repo, second)).toMatch(/Pullwright-Revision: /);
    expect(await gh.showFile(repo, second, 'src/slugify.js')).toContain('(trimmed first)');

    // main moves on: the merge train merges it into the branch through the API as well.
    await gh.commitToBranch(repo, 'main', { 'CHANGELOG.md': '# Changes\n' }, { user: 'maria' });
    await gh.submitReview(repo, pull!.number, { user: 'maria', state: 'APPROVED' });
    const merged = await fx.until(op.id, (o) => o.status === 'merged' || o.status === 'failed');
    expect(merged.error).toBeUndefined();
    expect(merged.status).toBe('merged');
    expect(merged.headSha).not.toBe(second);
    expect(gh.isVerified(merged.headSha!)).toBe(true);
    await gh.settled();
    expect(gh.pulls(repo)[0]).toMatchObject({ merged: true, closedHeadSha: merged.headSha });
    expect(await gh.showFile(repo, 'main', 'CHANGELOG.md')).toBe('# Changes\n');
    const signatures = (await sys.runtime.events.list(op.id)).filter((e) => e.type === 'commit_signature');
    expect(signatures.map((e) => e.data.state)).toEqual(['forge', 'forge', 'forge']);
  });

  it('where the git-data API answers 404 (an old GHES): pushed, and the operation, the PR and the receipt say unsigned', async () => {
    gh.withoutGitData(repo);
    gh.requireSignedCommits(repo, 'main');
    const op = await openOperation();
    expect(op.error).toBeUndefined();
    expect(op.status).toBe('awaiting_approval');
    const head = op.pullRequest!.headSha;
    expect(await gh.branchSha(repo, op.branch!)).toBe(head);
    expect(gh.isVerified(head)).toBe(false);
    expect(op.commitSignature).toEqual({ state: 'unsigned', reason: "GitHub's git-data API answered 404" });
    const events = (await sys.runtime.events.list(op.id)).filter((e) => e.type === 'commit_signature');
    expect(events.map((e) => e.data)).toEqual([
      { state: 'unsigned', reason: "GitHub's git-data API answered 404", headSha: head },
    ]);
    const [pull] = gh.pulls(repo);
    expect(pull!.body).toContain(
      "the commits of this change are unsigned: they were pushed over git because GitHub's git-data API answered 404",
    );
    expect(verifyVerification(pull!.body, sys.runtime.config.verificationKey!)).toMatchObject({
      valid: true,
      block: { headSha: head, commits: { signature: 'unsigned' } },
    });

    // The branch rule refuses what it cannot verify.
    await gh.submitReview(repo, pull!.number, { user: 'maria', state: 'APPROVED' });
    const after = await fx.until(op.id, (o) => !['approved', 'merging'].includes(o.status));
    expect(after.status).not.toBe('merged');
    expect(gh.pulls(repo)[0]!.merged).toBe(false);
  });
});
