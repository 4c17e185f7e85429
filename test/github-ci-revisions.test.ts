import { ReplayProvider, ReplayTranscript } from '@pullwright/agent';
import type { Operation, OperationEvent } from '@pullwright/core';
import { eventually } from '@pullwright/testing/eventually';
import { beforeEach, describe, expect, it } from 'vitest';
import { useGitHubFixture } from './support/fake-github/github-fixture.ts';
import type { GitHubTestSystem } from './support/fake-github/github-test-system.ts';
import type { Delivery, FakeCheck, FakeGitHub } from './support/fake-github.ts';

/** Short enough for a test, long enough that "after the delay" is measurable. */
const SETTLE_MS = 1500;
/** A token-shaped string a CI log might echo; it must never reach the model or a comment. */
const LEAKED = `ghp_${'Zq8xW2Lk9v'.repeat(3)}Ab3dEf`;

/** A CI revision that changes a file (so the branch moves and CI runs again on the new head). */
const ciRevision = (n: number) =>
  ReplayTranscript.parse({
    model: `replay:ci-${n}`,
    turns: [
      {
        content: [{ type: 'tool_use', name: 'write_file', input: { path: `notes/ci-${n}.md`, content: `try ${n}\n` } }],
      },
      {
        content: [
          { type: 'text', text: `Attempt ${n}. {"replies":[{"comment":"C1","outcome":"fixed","note":"Adjusted."}]}` },
        ],
      },
    ],
  });

const red = (name: string, extra: Partial<FakeCheck> = {}): FakeCheck => ({ name, conclusion: 'failure', ...extra });

describe('red CI on an operation’s PR revises it', () => {
  const fx = useGitHubFixture({
    repoPrefix: 'ci',
    collaborators: { maria: 'write' },
    policy: `triggers: { ci: { settle_ms: ${SETTLE_MS}, max_attempts: 2 } }`,
  });
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
    const op = await fx.until(id, (o) => o.status !== 'queued' && o.status !== 'running');
    expect(op.status, op.error).toBe('awaiting_approval');
    return op;
  }

  const outcomes = (ds: Delivery[]) => ds.map((d) => [d.event, JSON.parse(d.response).outcome]);
  const job = (id: string) => sys.runtime.queue.queue.getJob(id);
  /** The operation's `ci_failure` events once there are `count` of them. */
  const ciEvents = (id: string, count: number): Promise<OperationEvent[]> =>
    eventually(`operation ${id} has ${count} ci_failure events`, async () => {
      const found = (await sys.runtime.events.list(id)).filter((e) => e.type === 'ci_failure');
      return found.length >= count ? found : undefined;
    });
  const revisedFrom = (id: string, head: string) =>
    fx.until(id, (o) => o.status === 'awaiting_approval' && o.pullRequest?.headSha !== head);

  it('one revision per red head after the settle delay, a second on the new head, then a person is asked', async () => {
    const op = await openOperation();
    const h0 = op.pullRequest!.headSha;
    sys.runtime.createProvider = () => new ReplayProvider(ciRevision(1));
    const log = `npm test\n${'ok line\n'.repeat(200)}token=${LEAKED}\nAssertionError: expected 'hello world' to be 'hello-world'\n`;
    const first = await gh.reportChecks(repo, h0, [
      red('test', {
        summary: '1 test failed',
        log,
        annotations: [{ path: 'src/slugify.js', line: 3, message: 'expected hello-world' }],
      }),
      { name: 'lint', conclusion: 'success' },
    ]);
    // check_run ×2, check_suite, workflow_run: one delayed look, whatever the number of deliveries.
    expect(outcomes(first).map(([event]) => event)).toEqual(['check_run', 'check_run', 'check_suite', 'workflow_run']);
    expect(outcomes(first)[1]![1]).toBe('ignored: concluded success');
    for (const i of [0, 2, 3]) expect(outcomes(first)[i]![1]).toMatch(/^red CI noted on /);
    const look = await job(`${op.id}-ci-${h0.slice(0, 12)}`);
    expect(await look!.getState()).toBe('delayed');

    const r1 = await revisedFrom(op.id, h0);
    const h1 = r1.pullRequest!.headSha;
    const lookDone = await job(`${op.id}-ci-${h0.slice(0, 12)}`);
    // The look ran no earlier than the settle delay after the first red delivery.
    expect(lookDone!.processedOn! - lookDone!.timestamp).toBeGreaterThanOrEqual(SETTLE_MS);
    const revise = await job(`${op.id}-revise-ci-${h0}`);
    const [feedback] = revise!.data.feedback as { kind: string; body: string }[];
    expect(feedback!.kind).toBe('check_run');
    expect(feedback!.body).toContain('Check "test" concluded failure.');
    expect(feedback!.body).toContain('1 test failed');
    expect(feedback!.body).toContain('src/slugify.js:3: failure: expected hello-world');
    expect(feedback!.body).toContain("AssertionError: expected 'hello world' to be 'hello-world'");
    expect(feedback!.body).not.toContain(LEAKED);
    // Truncated to the end of the log.
    expect(feedback!.body.split('ok line').length - 1).toBeLessThan(200);
    expect(await gh.commitMessage(repo, h1)).toContain(`Pullwright-Revision: ci-${h0}`);

    // Red again on the new head: the second attempt.
    sys.runtime.createProvider = () => new ReplayProvider(ciRevision(2));
    await gh.reportChecks(repo, h1, [red('test', { summary: 'still failing' })]);
    const r2 = await revisedFrom(op.id, h1);
    const h2 = r2.pullRequest!.headSha;
    expect(await gh.commitMessage(repo, h2)).toContain(`Pullwright-Revision: ci-${h1}`);

    // Red a third time: the limit (2) is reached; a person is asked, nothing is revised.
    await gh.reportChecks(repo, h2, [red('test', { summary: 'still failing' })]);
    const events = await ciEvents(op.id, 3);
    expect(events.map((e) => [e.data.state, e.data.headSha, e.data.attempt ?? e.data.attempts])).toEqual([
      ['revision_queued', h0, 1],
      ['revision_queued', h1, 2],
      ['needs_human', h2, 2],
    ]);
    expect(await job(`${op.id}-revise-ci-${h2}`)).toBeUndefined();
    const after = await sys.runtime.store.get(op.id);
    expect([after.status, after.pullRequest!.headSha]).toEqual(['awaiting_approval', h2]);
    // The tracking comment is updated just after the event is written.
    const asked = `CI is red on \`${h2.slice(0, 7)}\` (test) after 2 automatic revision(s): this needs a person.`;
    const bot = () => gh.issueComments(repo, op.pullRequest!.number).filter((c) => c.user === gh.botLogin);
    await eventually('the tracking comment asks a person', () => bot().some((c) => c.body.includes(asked)));
    expect(bot()).toHaveLength(1);
    for (const c of gh.issueComments(repo, op.pullRequest!.number)) expect(c.body).not.toContain(LEAKED);
  });

  it('a check red on the base too is pre-existing: no revision', async () => {
    const op = await openOperation();
    const head = op.pullRequest!.headSha;
    const base = (await gh.branchSha(repo, 'main'))!;
    await gh.reportChecks(repo, base, [red('lint')], { deliver: false });
    await gh.reportChecks(repo, head, [red('lint'), { name: 'test', conclusion: 'success' }]);
    const [event] = await ciEvents(op.id, 1);
    expect(event!.data).toMatchObject({ state: 'pre_existing', headSha: head, checks: [], preExisting: ['lint'] });
    expect(await job(`${op.id}-revise-ci-${head}`)).toBeUndefined();
    expect((await sys.runtime.store.get(op.id)).pullRequest!.headSha).toBe(head);
  });

  it('a repository that turns CI revisions off in .pullwright.yml gets none', async () => {
    await gh.commitToBranch(repo, 'main', { '.pullwright.yml': 'triggers:\n  ci:\n    enabled: false\n' });
    const op = await openOperation();
    const deliveries = await gh.reportChecks(repo, op.pullRequest!.headSha, [red('test')]);
    expect(JSON.parse(deliveries.at(-1)!.response).outcome).toBe(
      `ignored: CI revisions are off for ${repo} (triggers.ci in the policy)`,
    );
    expect(await job(`${op.id}-ci-${op.pullRequest!.headSha.slice(0, 12)}`)).toBeUndefined();
  });
});
