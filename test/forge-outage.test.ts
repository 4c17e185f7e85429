import { rename } from 'node:fs/promises';
import os from 'node:os';
import type { Operation } from '@pullwright/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useGitHubFixture } from './support/fake-github/github-fixture.ts';
import type { GitHubTestSystem } from './support/fake-github/github-test-system.ts';
import type { FakeGitHub } from './support/fake-github.ts';
import { createSampleRepo } from './support/sample-repo.ts';
import { ScriptedModel, text, tool } from './support/scripted-model.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

/** No absolute path of the server: its temp dir, home, working directory or data directory. */
function expectNoHostPath(reason: string, dataDir: string): void {
  for (const root of [dataDir, os.tmpdir(), os.homedir(), process.cwd()]) expect(reason).not.toContain(root);
  expect(reason).not.toMatch(/(?<![\w:/.])\/(?:[\w.-]+\/)+/);
}

describe('the forge unavailable at publish (GitHub)', () => {
  const fx = useGitHubFixture({ repoPrefix: 'outage', collaborators: {}, env: { FORGE_RETRY_MS: '10000' } });
  let gh: FakeGitHub;
  let sys: GitHubTestSystem;
  let repo: string;
  beforeEach(() => {
    ({ gh, sys, repo } = fx);
  });

  async function run(): Promise<Operation> {
    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    return fx.until(id, (op) => op.status === 'awaiting_approval' || op.status === 'failed', 90_000);
  }

  it('answering 503 to the first pushes: the push is retried and the operation reaches awaiting_approval', async () => {
    gh.failPushes(503, 2);
    const op = await run();
    expect(op.error, `pushes seen: ${gh.pushAttempts}`).toBeUndefined();
    expect(op.status).toBe('awaiting_approval');
    // Two refused, then the push (git asks once without credentials, then with them).
    expect(gh.pushAttempts).toBeGreaterThan(2);
  });

  it('answering 503 for good: the operation fails naming GitHub and the status, and no path of the server', async () => {
    gh.failPushes(503, Number.POSITIVE_INFINITY);
    const op = await run();
    expect(op.status).toBe('failed');
    expect(op.error).toMatch(
      // The commits go through GitHub's git-data API (signed): its 503 is what is reported.
      /^GitHub \(127\.0\.0\.1:\d+\) is unavailable: pushing agent\/\S+ was tried \d+ times over \d+ s; GitHub: creating commits on agent\/\S+ failed \(503\): Service Unavailable\b/,
    );
    expect(gh.pushAttempts).toBeGreaterThan(1);
    expectNoHostPath(op.error!, sys.runtime.config.dataDir);
  });
});

describe('the forge unavailable at publish (local forge)', () => {
  let sys: TestSystem;
  let repo: string;
  let seq = 0;
  beforeAll(async () => {
    sys = await startTestSystem({ env: { FORGE_RETRY_MS: '4000' } });
  });
  afterAll(async () => sys?.stop());

  /** The sample fix, with the forge's repository moved away while the reviewer answers: right before publish. */
  async function run(outage: { backAfterMs?: number }): Promise<Operation> {
    repo = await createSampleRepo(sys.runtime.localForge!, `acme/outage-${++seq}`);
    const dir = sys.runtime.localForge!.repoDir(repo);
    const away = `${dir}.away`;
    sys.runtime.createProvider = () =>
      new ScriptedModel([
        text(
          JSON.stringify({
            summary: 'Join words with dashes',
            steps: [{ title: 'Fix', files: ['src/slugify.js'], acceptance: 'tests pass' }],
          }),
        ),
        tool('edit_file', {
          path: 'src/slugify.js',
          oldText: "  return title.toLowerCase().replace(' ', '-');",
          newText: "  return title.trim().toLowerCase().split(/\\s+/).join('-');",
        }),
        text('Done.'),
        async () => {
          await rename(dir, away);
          if (outage.backAfterMs !== undefined) setTimeout(() => void rename(away, dir), outage.backAfterMs);
          return text(JSON.stringify({ decision: 'accept', reasons: ['small'] }));
        },
      ]);
    const res = await sys.request('POST', '/v1/operations', { type: 'implement', repo, description: 'Mark the join' });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    return waitForStatus(sys, id, ['awaiting_approval', 'failed'], 90_000);
  }

  it('back after a while: retried, and the operation reaches awaiting_approval', async () => {
    const op = await run({ backAfterMs: 1500 });
    expect(op.error).toBeUndefined();
    expect(op.status).toBe('awaiting_approval');
  });

  it('gone for good: failed, naming the local forge, and no path of the server', async () => {
    const op = await run({});
    expect(op.status).toBe('failed');
    expect(op.error).toMatch(/^the local forge is unavailable: reading agent\/\S+ on the forge was tried \d+ times/);
    expectNoHostPath(op.error!, sys.runtime.config.dataDir);
  });
});
