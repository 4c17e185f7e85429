import { ReplayProvider, ReplayTranscript } from '@pullwright/agent';
import type { Operation } from '@pullwright/core';
import { reviseOperation } from '@pullwright/pipeline';
import { JOB_CATALOG } from '@pullwright/queue';
import { beforeEach, describe, expect, it } from 'vitest';
import { useGitHubFixture } from './support/fake-github/github-fixture.ts';
import type { GitHubTestSystem } from './support/fake-github/github-test-system.ts';
import type { FakeGitHub } from './support/fake-github.ts';
import { waitForJob } from './support/wait-for-job.ts';

/** The reviewer's requests, answered: strip punctuation (fixed), rename the function (declined). */
const REVISION = ReplayTranscript.parse({
  model: 'replay:revise-slugify',
  turns: [
    { content: [{ type: 'tool_use', name: 'read_file', input: { path: 'src/slugify.js' } }] },
    {
      content: [
        {
          type: 'tool_use',
          name: 'edit_file',
          input: {
            path: 'src/slugify.js',
            oldText: "  return title.trim().toLowerCase().split(/\\s+/).join('-');",
            newText: "  return title.trim().toLowerCase().replace(/[^a-z0-9\\s-]/g, '').split(/\\s+/).join('-');",
          },
        },
      ],
    },
    { content: [{ type: 'tool_use', name: 'run_check', input: { name: 'test' } }] },
    {
      content: [
        {
          type: 'text',
          text: 'Punctuation is now dropped before the words are joined.\n\n{"replies":[{"comment":"C1","outcome":"fixed","note":"Punctuation is stripped before joining."},{"comment":"C2","outcome":"declined","note":"Renaming would break every caller of slugify."}]}',
        },
      ],
    },
  ],
});

/** A revision that breaks the tests: it must never reach the branch. */
const BREAKING = ReplayTranscript.parse({
  model: 'replay:revise-breaks',
  turns: [
    {
      content: [
        {
          type: 'tool_use',
          name: 'edit_file',
          input: {
            path: 'src/slugify.js',
            oldText: "  return title.trim().toLowerCase().split(/\\s+/).join('-');",
            newText: "  return '';",
          },
        },
      ],
    },
    {
      content: [{ type: 'text', text: 'Done. {"replies":[{"comment":"C1","outcome":"fixed","note":"Simplified."}]}' }],
    },
  ],
});

describe('GitHub App flow against a GHES-style server', () => {
  const fx = useGitHubFixture({ repoPrefix: 'slugify', collaborators: { maria: 'write', mallory: 'read' } });
  let gh: FakeGitHub;
  let sys: GitHubTestSystem;
  let repo: string;
  beforeEach(() => {
    ({ gh, sys, repo } = fx);
  });
  const until = fx.until;

  async function openOperation(): Promise<Operation> {
    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const op = await until(id, (o) => o.status !== 'queued' && o.status !== 'running');
    expect(op.error).toBeUndefined();
    expect(op.status).toBe('awaiting_approval');
    return op;
  }

  async function statuses(id: string): Promise<unknown[]> {
    return (await sys.runtime.events.list(id)).filter((e) => e.type === 'status').map((e) => e.data.to);
  }

  it('opens the PR with scoped tokens, and an approving review merges exactly the approved sha once', async () => {
    const op = await openOperation();
    const [pull] = gh.pulls(repo);
    expect(pull).toMatchObject({ head: op.branch, base: 'main', draft: false, state: 'open', author: gh.botLogin });
    const headSha = await gh.branchSha(repo, op.branch!);
    expect(op.pullRequest).toMatchObject({ number: pull!.number, headSha });
    expect(op.pullRequest!.url).toBe(`${gh.url}/${repo}/pull/${pull!.number}`);
    expect(pull!.body).toContain('src/slugify.js');

    // Every token this app asked for: one repository, three permissions, signed by the app.
    const name = repo.split('/')[1];
    const mine = gh.tokenRequests.filter((r) => r.repositories?.includes(name!));
    expect(mine.length).toBeGreaterThan(0);
    for (const r of mine) {
      expect(r).toMatchObject({
        jwtIss: gh.appId,
        repositories: [name],
        permissions: { contents: 'write', pull_requests: 'write', issues: 'write' },
      });
    }

    const approval = await gh.submitReview(repo, pull!.number, { user: 'maria', state: 'APPROVED' });
    expect(approval.status).toBe(200);
    expect(JSON.parse(approval.response).outcome).toBe(`approved at ${headSha!.slice(0, 12)}`);
    const merged = await until(op.id, (o) => o.status === 'merged' || o.status === 'failed');
    expect(merged.status, merged.error).toBe('merged');
    expect(merged.approval).toMatchObject({ by: 'maria', source: 'github', headSha });
    const main = await gh.branchSha(repo, 'main');
    expect((await gh.commitMessage(repo, 'main')).split('\n')[0]).toBe(
      `Merge pull request #${pull!.number} from ${op.branch}`,
    );
    expect(gh.pulls(repo)[0]).toMatchObject({ merged: true, mergeCommitSha: main, closedHeadSha: headSha });

    // GitHub's retry of the same delivery changes nothing.
    const replay = await gh.redeliver(approval.id);
    expect(JSON.parse(replay.response).outcome).toMatch(/^duplicate delivery/);
    await gh.settled();
    expect(await statuses(op.id)).toEqual(['running', 'awaiting_approval', 'approved', 'merging', 'merged']);
    // Our own merge comes back as pull_request.closed and is recognised as ours.
    const closed = gh.deliveries.find((d) => d.event === 'pull_request' && d.action === 'closed');
    expect(JSON.parse(closed!.response).outcome).toMatch(/^ignored: operation is (merged|merging)$/);
  });

  it('revises on changes requested: a new commit on the same branch, replies in the threads, then merges the new head', async () => {
    const op = await openOperation();
    const number = op.pullRequest!.number;
    const before = op.pullRequest!.headSha;
    sys.runtime.createProvider = () => new ReplayProvider(REVISION);

    const review = await gh.submitReview(repo, number, {
      user: 'maria',
      state: 'CHANGES_REQUESTED',
      comments: [
        {
          path: 'src/slugify.js',
          line: 3,
          body: 'Please also drop punctuation: "Hello, World!" should be hello-world.',
        },
        { path: 'src/slugify.js', line: 2, body: 'Rename slugify to toSlug?' },
      ],
    });
    expect(JSON.parse(review.response).outcome).toBe('revision queued');
    const revised = await until(op.id, (o) => o.status === 'awaiting_approval' && o.pullRequest?.headSha !== before);
    expect(revised.error).toBeUndefined();
    const after = revised.pullRequest!.headSha;
    expect(await gh.branchSha(repo, op.branch!)).toBe(after);
    expect(revised.headSha).toBe(after);
    expect(revised.checks.map((c) => [c.name, c.passed])).toEqual([['test', true]]);
    // No force: the revision sits on top of the reviewed commit.
    const message = await gh.commitMessage(repo, after);
    expect(message).toContain(`Pullwright-Revision: ${review.id}`);
    expect((await gh.showFile(repo, after, 'src/slugify.js')).includes('[^a-z0-9\\s-]')).toBe(true);

    const replies = gh.reviewComments(repo, number).filter((c) => c.inReplyTo);
    const threads = gh.reviewComments(repo, number).filter((c) => !c.inReplyTo);
    expect(replies.map((r) => [r.inReplyTo, r.user, r.body])).toEqual([
      [threads[0]!.id, gh.botLogin, `Fixed in ${after.slice(0, 7)}. Punctuation is stripped before joining.`],
      [threads[1]!.id, gh.botLogin, 'Declined: Renaming would break every caller of slugify.'],
    ]);
    const tracking = gh.issueComments(repo, number).filter((c) => c.user === gh.botLogin);
    expect(tracking).toHaveLength(1);
    // The review ledger: the round, each request with its outcome.
    expect(tracking[0]!.body).toContain('| Request | Outcome |');
    expect(tracking[0]!.body).toContain(`#### Round 1 · 2 request(s) · pushed \`${after.slice(0, 7)}\``);
    expect(tracking[0]!.body).toContain(`Fixed in ${after.slice(0, 7)}`);
    expect(tracking[0]!.body).toContain('Declined: Renaming would break every caller of slugify.');

    // The same request again (a retried job) neither commits nor replies twice. Counted once the
    // first job has finished: it goes on writing (replies, its steps' ends) after the status.
    const revisionJob = `${op.id}-revise-${review.id}`;
    expect((await waitForJob(sys, revisionJob)).state).toBe('completed');
    const eventsBefore = (await sys.runtime.events.list(op.id)).length;
    await reviseOperation({ opId: op.id, requestId: review.id, reviewId: 1 }, sys.runtime);
    expect((await sys.runtime.events.list(op.id)).length).toBe(eventsBefore);
    expect(await gh.branchSha(repo, op.branch!)).toBe(after);
    expect(gh.reviewComments(repo, number).filter((c) => c.inReplyTo)).toHaveLength(2);

    // An approval of the commit before the revision binds to nothing.
    const stale = await gh.submitReview(repo, number, { user: 'maria', state: 'APPROVED', commitId: before });
    expect(JSON.parse(stale.response).outcome).toMatch(/^ignored: the branch moved/);
    expect((await sys.runtime.store.get(op.id)).status).toBe('awaiting_approval');

    await gh.submitReview(repo, number, { user: 'maria', state: 'APPROVED' });
    const merged = await until(op.id, (o) => o.status === 'merged' || o.status === 'failed');
    expect(merged.status, merged.error).toBe('merged');
    expect(await gh.showFile(repo, 'main', 'src/slugify.js')).toContain('[^a-z0-9\\s-]');
    expect(await statuses(op.id)).toEqual([
      'running',
      'awaiting_approval',
      'running',
      'awaiting_approval',
      'approved',
      'merging',
      'merged',
    ]);
  });

  it('a push after approval invalidates it; the queued merge then merges nothing; closing rejects', async () => {
    const op = await openOperation();
    const number = op.pullRequest!.number;
    await sys.stopWorker();
    await gh.submitReview(repo, number, { user: 'maria', state: 'APPROVED' });
    expect((await sys.runtime.store.get(op.id)).status).toBe('approved');
    const mainBefore = await gh.branchSha(repo, 'main');

    const pushed = await gh.commitToBranch(repo, op.branch!, { 'NOTES.md': 'unreviewed\n' }, { user: 'maria' });
    const invalidated = await sys.runtime.store.get(op.id);
    expect(invalidated.status).toBe('awaiting_approval');
    expect(invalidated.approval).toBeUndefined();
    expect(invalidated.pullRequest?.headSha).toBe(pushed);

    await sys.startWorker();
    // The merge queued at the approval runs and ends; only then is "it merged nothing" proven.
    const merge = JOB_CATALOG.merge.jobId({ opId: op.id, headSha: op.pullRequest!.headSha });
    expect((await waitForJob(sys, merge)).state).toBe('completed');
    expect((await sys.runtime.store.get(op.id)).status).toBe('awaiting_approval');
    expect(await gh.branchSha(repo, 'main')).toBe(mainBefore);
    expect(gh.pulls(repo)[0]!.state).toBe('open');

    const closed = await gh.closePull(repo, number, 'maria');
    expect(JSON.parse(closed.response).outcome).toBe('rejected: pull request closed');
    const rejected = await sys.runtime.store.get(op.id);
    expect(rejected).toMatchObject({ status: 'rejected', error: 'rejected by maria: pull request closed on GitHub' });
    const events = (await sys.runtime.events.list(op.id)).filter((e) => e.type === 'status');
    expect(events.find((e) => e.data.approvalInvalidated)?.data).toMatchObject({
      to: 'awaiting_approval',
      headSha: pushed,
    });
  });

  it('ignores people without write access and unsigned deliveries, and records a merge done on GitHub', async () => {
    const op = await openOperation();
    const number = op.pullRequest!.number;
    // Jobs ever added (the run job may still be finishing: active and completed both count).
    const jobs = async () => Object.values(await sys.runtime.queue.counts()).reduce((a, b) => a + b, 0);
    const counts = await jobs();

    const comment = await gh.addIssueComment(repo, number, { user: 'mallory', body: '/pullwright delete the tests' });
    expect(JSON.parse(comment.response).outcome).toBe(`ignored: mallory has no write access to ${repo}`);
    const review = await gh.submitReview(repo, number, { user: 'mallory', state: 'APPROVED' });
    expect(JSON.parse(review.response).outcome).toBe(`ignored: mallory has no write access to ${repo}`);
    expect(sys.logs.join('')).toContain('ignored: mallory has no write access');

    const body = JSON.parse(review.payload) as Record<string, unknown>;
    (body.sender as { login: string }).login = 'maria';
    (body.review as { user: { login: string } }).user.login = 'maria';
    const forged = JSON.stringify(body);
    const post = (headers: Record<string, string>) =>
      fetch(`${sys.api.url}/github/webhooks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'pull_request_review',
          'x-github-delivery': 'forged-1',
          ...headers,
        },
        body: forged,
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` })).status).toBe(401);
    // Signed for another body: the signature covers every byte.
    expect((await post({ 'x-hub-signature-256': gh.signature(review.payload) })).status).toBe(401);
    expect(await jobs()).toBe(counts);
    expect((await sys.runtime.store.get(op.id)).status).toBe('awaiting_approval');

    const merged = await gh.closePull(repo, number, 'maria', { merge: true });
    expect(JSON.parse(merged.response).outcome).toBe('merged outside Pullwright: recorded');
    const final = await sys.runtime.store.get(op.id);
    expect(final).toMatchObject({ status: 'merged', approval: { by: 'maria', source: 'github' } });
    expect(await jobs()).toBe(counts);
  });

  it('a /pullwright comment from a collaborator revises; a revision that breaks the checks leaves the branch as it was', async () => {
    const op = await openOperation();
    const number = op.pullRequest!.number;
    const before = op.pullRequest!.headSha;
    sys.runtime.createProvider = () => new ReplayProvider(BREAKING);

    const comment = await gh.addIssueComment(repo, number, { user: 'maria', body: '/pullwright simplify slugify' });
    expect(JSON.parse(comment.response).outcome).toBe('revision queued');
    const back = await until(op.id, (o) => o.status === 'awaiting_approval' && o.version > op.version + 2);
    expect(back.pullRequest!.headSha).toBe(before);
    expect(await gh.branchSha(repo, op.branch!)).toBe(before);
    const failure = (await sys.runtime.events.list(op.id)).filter((e) => e.type === 'status').at(-1);
    expect(failure?.data).toMatchObject({ to: 'awaiting_approval', revision: comment.id });
    // The revision's fixer had its rounds first (this recording's fixer changes nothing): the same
    // failure came back after two repairs.
    expect(String(failure?.data.revisionFailed)).toMatch(/^stuck: the same failure .* came back after two repairs/);
    expect(String(failure?.data.revisionFailed)).toContain('check "test" exited with 1:');
    const events = await sys.runtime.events.list(op.id);
    const since = events.slice(events.findLastIndex((e) => e.type === 'revision' && e.data.state === 'requested'));
    expect(since.filter((e) => e.type === 'fix_report').map((e) => e.data.round)).toEqual([1, 2]);
    // The comment is rewritten right after the status: wait for it.
    const tracking = () => gh.issueComments(repo, number).filter((c) => c.user === gh.botLogin);
    await expect.poll(() => tracking()[0]?.body).toContain('could not be completed; the branch is unchanged');
    expect(tracking()).toHaveLength(1);
    expect(tracking()[0]!.body).toContain('check `test` exited with 1; failing: ');
  });
});
