import { verifyVerification } from '@pullwright/pipeline';
import { beforeEach, describe, expect, it } from 'vitest';
import { useGitHubFixture } from './support/fake-github/github-fixture.ts';
import type { GitHubTestSystem } from './support/fake-github/github-test-system.ts';
import type { FakeGitHub } from './support/fake-github.ts';

describe('merge train against a GHES-style server', () => {
  const fx = useGitHubFixture({ repoPrefix: 'train', collaborators: { maria: 'write' } });
  let gh: FakeGitHub;
  let sys: GitHubTestSystem;
  let repo: string;
  beforeEach(() => {
    ({ gh, sys, repo } = fx);
  });
  const until = fx.until;

  it('an approval of a branch behind main: the base is merged in over HTTPS, checks re-run, and the new head merged', async () => {
    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    const { id } = (await res.json()) as { id: string };
    const op = await until(id, (o) => o.status !== 'queued' && o.status !== 'running');
    expect(op.status).toBe('awaiting_approval');
    const [pull] = gh.pulls(repo);
    const approvedSha = op.pullRequest!.headSha;
    // The signed block and the one tracking comment are on GitHub.
    expect(verifyVerification(pull!.body, sys.runtime.config.verificationKey!)).toMatchObject({
      valid: true,
      block: { headSha: approvedSha },
    });
    // Written right after the status changes: give it a moment.
    await expect.poll(() => gh.issueComments(repo, pull!.number).filter((c) => c.user === gh.botLogin).length).toBe(1);
    const tracking = gh.issueComments(repo, pull!.number).filter((c) => c.user === gh.botLogin);
    expect(tracking[0]!.body).toContain('Pull request opened');

    const baseMove = await gh.commitToBranch(repo, 'main', { 'CHANGELOG.md': '# Changes\n' }, { user: 'maria' });
    await gh.submitReview(repo, pull!.number, { user: 'maria', state: 'APPROVED' });
    const merged = await until(id, (o) => o.status === 'merged' || o.status === 'failed');
    expect(merged.error).toBeUndefined();
    expect(merged.status).toBe('merged');
    expect(merged.approval?.headSha).toBe(approvedSha);

    await gh.settled();
    const pr = gh.pulls(repo)[0]!;
    expect(pr).toMatchObject({ merged: true, closedHeadSha: merged.headSha });
    expect(merged.headSha).not.toBe(approvedSha);
    const update = (await sys.runtime.events.list(id)).find((e) => e.type === 'base_merged');
    expect(update?.data).toMatchObject({ approvedSha, baseSha: baseMove, headSha: merged.headSha });
    expect(await gh.showFile(repo, 'main', 'CHANGELOG.md')).toBe('# Changes\n');
    expect(await gh.showFile(repo, 'main', 'src/slugify.js')).toContain('split(/\\s+/)');
    // Our own push during the merge came back as a synchronize delivery and changed nothing.
    const sync = gh.deliveries.filter((d) => d.event === 'pull_request' && d.action === 'synchronize');
    expect(sync.length).toBeGreaterThan(0);
    expect(sync.map((d) => JSON.parse(d.response).outcome)).not.toContain('approval invalidated by a push');
  });
});
