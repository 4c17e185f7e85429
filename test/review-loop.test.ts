import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ReplayProvider, ReplayTranscript } from '@pullwright/agent';
import type { Operation } from '@pullwright/core';
import { sampleSecret } from '@pullwright/security/credential-samples';
import { REVISE_BLOCK, REVISE_INPUT, REVISE_VIEW } from '@pullwright/slack';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type GitHubTestSystem, startGitHubTestSystem } from './support/fake-github/github-test-system.ts';
import { FakeGitHub } from './support/fake-github.ts';
import { type FakeSlack, startFakeSlack } from './support/fake-slack.ts';
import { postSigned } from './support/fake-slack-requests.ts';
import { SAMPLE_DIR } from './support/sample-repo.ts';
import { waitForOperation } from './support/wait-for-status.ts';

const SIGNING_SECRET = 'review-loop-signing-secret-0123';
const BOT_TOKEN = sampleSecret('slack-bot-token', 15);

/** One revision: writes `file`, runs the checks, answers its one request as fixed. */
function revision(file: string, content: string): ReplayTranscript {
  return ReplayTranscript.parse({
    model: `replay:revise-${file}`,
    turns: [
      { content: [{ type: 'tool_use', name: 'write_file', input: { path: file, content } }] },
      { content: [{ type: 'tool_use', name: 'run_check', input: { name: 'test' } }] },
      {
        content: [
          {
            type: 'text',
            text: `Wrote ${file}.\n\n{"replies":[{"comment":"C1","outcome":"fixed","note":"Added ${file}."}]}`,
          },
        ],
      },
    ],
  });
}

describe('the review loop across GitHub and Slack', () => {
  let gh: FakeGitHub;
  let slack: FakeSlack;
  let sys: GitHubTestSystem;
  let scratch: string;
  const repo = 'acme/review-loop';

  beforeAll(async () => {
    gh = await new FakeGitHub().start();
    await gh.createRepository(repo, { fromDir: SAMPLE_DIR });
    gh.addCollaborator(repo, 'maria', 'write');
    slack = await startFakeSlack({ botToken: BOT_TOKEN });
    scratch = mkdtempSync(path.join(os.tmpdir(), 'pw-review-loop-'));
    // Two approvals to merge: maria's approval is recorded and the PR stays open for more rounds.
    const policy = path.join(scratch, 'policy.yml');
    writeFileSync(policy, 'approvals: { required: 2 }\n');
    sys = await startGitHubTestSystem(gh, {
      POLICY_FILE: policy,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_API_URL: slack.apiUrl,
      PUBLIC_URL: 'https://pullwright.example',
    });
  });
  afterAll(async () => {
    await gh?.settled();
    await sys?.stop();
    await slack?.close();
    await gh?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });
  afterEach(() => expect(sys.logs.join('')).not.toContain(BOT_TOKEN));

  const until = (id: string, done: (op: Operation) => boolean) => waitForOperation(sys, id, done, 60_000);

  it('GitHub then Slack: two revisions, the interdiff since the approval shows only the second, the ledger and the tracking comment keep both', async () => {
    const created = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    const opened = await until(id, (o) => o.status === 'awaiting_approval' || o.status === 'failed');
    expect(opened.status, opened.error).toBe('awaiting_approval');
    const number = opened.pullRequest!.number;
    const h0 = opened.pullRequest!.headSha;

    // Round 1: a GitHub review asking for changes.
    sys.runtime.createProvider = () => new ReplayProvider(revision('docs/first.md', 'first round\n'));
    const review = await gh.submitReview(repo, number, {
      user: 'maria',
      state: 'CHANGES_REQUESTED',
      body: 'Document the first thing.',
    });
    expect(JSON.parse(review.response).outcome).toBe('revision queued');
    const first = await until(id, (o) => o.status === 'awaiting_approval' && o.pullRequest!.headSha !== h0);
    const h1 = first.pullRequest!.headSha;

    // maria approves that head: one approval of the two, so it waits (and h1 is "the approved sha").
    await gh.submitReview(repo, number, { user: 'maria', state: 'APPROVED' });
    await until(id, (o) => (o.approvals ?? []).some((a) => a.headSha === h1));

    // Round 2: the Request changes modal in Slack, submitted.
    sys.runtime.createProvider = () => new ReplayProvider(revision('docs/second.md', 'second round\n'));
    const submission = {
      type: 'view_submission',
      user: { id: 'UREVIEW01' },
      view: {
        id: 'V0REVIEW1',
        callback_id: REVISE_VIEW,
        private_metadata: id,
        state: { values: { [REVISE_BLOCK]: { [REVISE_INPUT]: { value: 'Document the second thing.' } } } },
      },
    };
    const answer = await postSigned(
      `${sys.api.url}/slack/interactions`,
      SIGNING_SECRET,
      new URLSearchParams({ payload: JSON.stringify(submission) }).toString(),
    );
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({});
    const second = await until(id, (o) => o.status === 'awaiting_approval' && o.pullRequest!.headSha !== h1);
    const h2 = second.pullRequest!.headSha;

    // The interdiff: by default from the approved head, and it holds exactly the second change.
    const res = await sys.request('GET', `/v1/operations/${id}/interdiff`);
    expect(res.status).toBe(200);
    const inter = (await res.json()) as {
      from: string;
      to: string;
      files: { path: string; lines: { text: string }[] }[];
    };
    expect(inter.from).toBe(h1);
    expect(inter.to).toBe(h2);
    expect(inter.files.map((f) => f.path)).toEqual(['docs/second.md']);
    expect(inter.files[0]!.lines.map((l) => l.text)).toContain('second round');
    // The whole PR still holds both.
    const whole = (await (await sys.request('GET', `/v1/operations/${id}/diff`)).json()) as {
      files: { path: string }[];
    };
    expect(whole.files.map((f) => f.path)).toEqual(expect.arrayContaining(['docs/first.md', 'docs/second.md']));

    // The ledger: both rounds, who asked where, and what was done.
    expect(second.ledger).toMatchObject([
      {
        requestId: review.id,
        fromSha: h0,
        headSha: h1,
        state: 'pushed',
        entries: [{ source: 'github', user: 'maria', text: 'Document the first thing.', outcome: 'fixed' }],
      },
      {
        requestId: 'slack-view-V0REVIEW1',
        fromSha: h1,
        headSha: h2,
        state: 'pushed',
        entries: [{ source: 'slack', user: 'UREVIEW01', text: 'Document the second thing.', outcome: 'fixed' }],
      },
    ]);

    // The tracking comment keeps both rounds (the older collapsed) and links the interdiff.
    const tracking = gh.issueComments(repo, number).filter((c) => c.user === gh.botLogin);
    expect(tracking).toHaveLength(1);
    const body = tracking[0]!.body;
    expect(body).toContain(`#### Round 2 · 1 request(s) · pushed \`${h2.slice(0, 7)}\``);
    expect(body).toMatch(/<details><summary>Round 1 · 1 request\(s\) · pushed/);
    expect(body).toContain('@maria (github): Document the first thing. | Fixed in');
    expect(body).toContain('@UREVIEW01 (slack): Document the second thing. | Fixed in');
    expect(body).toContain(`https://pullwright.example/#/op/${id}?tab=changes&from=${h1}`);
  });
});
