import { ReplayProvider, ReplayTranscript } from '@pullwright/agent';
import type { OperationEvent } from '@pullwright/core';
import { eventually } from '@pullwright/testing/eventually';
import { describe, expect, it } from 'vitest';
import { useGitHubFixture } from './support/fake-github/github-fixture.ts';

/** What the owner of an installation made before the app asked for Actions: read has accepted. */
const WITHOUT_ACTIONS = {
  contents: 'write',
  pull_requests: 'write',
  issues: 'write',
  checks: 'read',
  metadata: 'read',
} as const;
/** A line only the Actions job log holds: it must not be read without the permission. */
const LOG_ONLY = 'AssertionError: only the job log says this';
/** The machine may be shared by several test runs: generous bounds, each wait ends as soon as its state is there. */
const LONG = { timeoutMs: 240_000 };

const ciRevision = ReplayTranscript.parse({
  model: 'replay:ci-permissions',
  turns: [
    { content: [{ type: 'tool_use', name: 'write_file', input: { path: 'notes/ci.md', content: 'try\n' } }] },
    { content: [{ type: 'text', text: '{"replies":[{"comment":"C1","outcome":"fixed","note":"Adjusted."}]}' }] },
  ],
});

describe('an installation that has not granted Actions: read', () => {
  const fx = useGitHubFixture({
    repoPrefix: 'perm',
    collaborators: { maria: 'write' },
    policy: 'triggers: { ci: { settle_ms: 200, max_attempts: 2 } }',
  });

  it('still takes a /debug to a PR; the CI follow-up and the readiness detail say what is missing', async () => {
    const { gh, sys, repo } = fx;
    gh.grantInstallation('acme', { ...WITHOUT_ACTIONS });

    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    const { id } = (await res.json()) as { id: string };
    const op = await fx.until(id, (o) => o.status !== 'queued' && o.status !== 'running', 240_000);
    expect(op.status, op.error).toBe('awaiting_approval');
    // Tokens asked only for what the installation grants.
    expect(gh.tokenRequests.length).toBeGreaterThan(0);
    for (const request of gh.tokenRequests) expect(request.permissions).not.toHaveProperty('actions');

    const head = op.pullRequest!.headSha;
    sys.runtime.createProvider = () => new ReplayProvider(ciRevision);
    await gh.reportChecks(repo, head, [
      {
        name: 'test',
        conclusion: 'failure',
        summary: '1 test failed',
        log: `npm test\n${LOG_ONLY}\n`,
        annotations: [{ path: 'src/slugify.js', line: 3, message: 'expected hello-world' }],
      },
    ]);
    const [event] = await eventually(
      'a ci_failure event',
      async () => {
        const found = (await sys.runtime.events.list(id)).filter((e: OperationEvent) => e.type === 'ci_failure');
        return found.length > 0 ? found : undefined;
      },
      LONG,
    );
    expect(event!.data).toMatchObject({ state: 'revision_queued', missingPermissions: ['actions: read'] });
    // The revision works from what could be read: the summary and annotations, not the log.
    const revise = await sys.runtime.queue.queue.getJob(`${id}-revise-ci-${head}`);
    const [feedback] = revise!.data.feedback as { body: string }[];
    expect(feedback!.body).toContain('src/slugify.js:3: failure: expected hello-world');
    expect(feedback!.body).not.toContain(LOG_ONLY);
    const said =
      "The CI job logs were not read: the GitHub App's installation has not granted actions: read (its owner accepts the app's updated permissions in the installation settings)";
    await eventually(
      'the tracking comment names the missing permission',
      // The note is the comment's latest line: the revision it queued may already have replaced it.
      () =>
        gh
          .issueComments(repo, op.pullRequest!.number)
          .some((c) => c.user === gh.botLogin && [c.body, ...(c.history ?? [])].some((b) => b.includes(said))),
      LONG,
    );

    // Said once: red CI on the revised head is looked at the same way, without saying it again.
    const revised = await fx.until(
      id,
      (o) => o.status === 'awaiting_approval' && o.pullRequest?.headSha !== head,
      240_000,
    );
    await gh.reportChecks(repo, revised.pullRequest!.headSha, [
      { name: 'test', conclusion: 'failure', summary: 'still failing' },
    ]);
    const events = await eventually(
      'a second ci_failure event',
      async () => {
        const found = (await sys.runtime.events.list(id)).filter((e: OperationEvent) => e.type === 'ci_failure');
        return found.length > 1 ? found : undefined;
      },
      LONG,
    );
    expect(events[1]!.data.state).toBe('revision_queued');
    expect(events[1]!.data).not.toHaveProperty('missingPermissions');

    const ready = await fetch(`${sys.api.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      ok: true,
      redis: 'up',
      github: {
        permissionGaps: [
          {
            account: 'acme',
            missing: [{ permission: 'actions: read', affects: 'reading the Actions job logs of red CI' }],
          },
        ],
      },
    });
  }, 600_000);
});
