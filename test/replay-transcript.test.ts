import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spawnCli } from './support/cli-process.ts';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

/** A /debug on a fresh sample repository, to its PR: the PR's diff and the transcript the dashboard offers. */
async function debugToPullRequest(sys: TestSystem): Promise<{ diff: string; transcript: string }> {
  const forge = sys.runtime.localForge!;
  const repo = await createSampleRepo(forge);
  const created = await sys.request('POST', '/v1/operations', {
    type: 'debug',
    repo,
    description: 'slugify keeps spaces',
  });
  const { id } = (await created.json()) as { id: string };
  // The machine may be shared: the bound is generous, the test ends as soon as the PR is there.
  const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed'], 240_000);
  expect(op.error).toBeUndefined();
  // The dashboard's run record lists transcript.jsonl as a download from this URL.
  const download = await sys.request('GET', `/v1/operations/${id}/artifacts/transcript.jsonl`);
  expect(download.status).toBe(200);
  return { diff: await forge.pullRequestDiff(repo, op.pullRequest!.number), transcript: await download.text() };
}

describe('the keyless path: an operation transcript is a replay file', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-replay-transcript-'));
  const replayFile = path.join(dir, 'transcript.jsonl');
  let sys: TestSystem | undefined;
  afterEach(async () => {
    await sys?.stop();
    sys = undefined;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the dashboard's transcript download replays as REPLAY_FILE to the same PR", async () => {
    sys = await startTestSystem();
    const recorded = await debugToPullRequest(sys);
    await sys.stop();
    writeFileSync(replayFile, recorded.transcript);

    sys = await startTestSystem({ env: { REPLAY_FILE: replayFile } });
    const replayed = await debugToPullRequest(sys);
    expect(replayed.diff).toContain("split(/\\s+/).join('-')");
    expect(replayed.diff).toBe(recorded.diff);
  }, 600_000);

  it('npm start with a REPLAY_FILE of its own seeds no demo operation', async () => {
    writeFileSync(replayFile, JSON.stringify({ turns: [{ content: [{ type: 'text', text: 'nothing to do' }] }] }));
    const dataDir = path.join(dir, 'data');
    const start = spawnCli(
      ['start'],
      { DATA_DIR: dataDir, PORT: '0', SANDBOX: 'none', REPLAY_FILE: replayFile, SHUTDOWN_GRACE_MS: '5000' },
      'Pullwright is running.',
    );
    try {
      await start.ready;
      // The demo is seeded (and logged) before the "running" line, or not at all.
      expect(start.output()).not.toContain('demo operation enqueued');
      expect(start.output()).not.toContain('demo mode');
    } finally {
      start.child.kill('SIGTERM');
      await start.exited;
    }
  });
});
