import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sampleSecret } from '@pullwright/security/credential-samples';
import { afterEach, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

// Each shaped like the real thing, so pattern rules as well as exact-value masking are exercised.
const REPO_TOKEN = sampleSecret('github-pat', 10); // in a file the repo's test prints
const MODEL_TOKEN = sampleSecret('github-pat', 11); // in the model's output
const CHECK_TOKEN = sampleSecret('github-pat', 12); // in a file the repo's test writes
const SERVICE_SECRET = 'planted-service-secret-4f9a8b7c6d5e'; // in the worker's configuration
const ENV_SECRET = 'planted-env-secret-0a1b2c3d4e5f6a7b'; // in the worker's process environment
const PLANTED = [REPO_TOKEN, MODEL_TOKEN, SERVICE_SECRET, ENV_SECRET];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    const st = statSync(full);
    // The forge and the workspace hold the repository itself (its fixture has the token by design).
    if (st.isDirectory()) return ['forge', 'redis', 'workspace'].includes(name) ? [] : filesUnder(full);
    return st.size < 5_000_000 ? [full] : [];
  });
}

function writeTranscript(turns: unknown[]): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'pw-replay-')), 'planted.replay.json');
  writeFileSync(file, JSON.stringify({ model: 'replay:planted', turns }));
  return file;
}

const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
const tool = (name: string, input: unknown) => ({ content: [{ type: 'tool_use', name, input }] });
const plan = (extra = '') =>
  text(
    JSON.stringify({
      summary: `Fix slugify.${extra}`,
      steps: [{ title: 'Fix', files: ['src/slugify.js'], acceptance: 'npm test passes' }],
      risks: [],
    }),
  );
const FIX = {
  path: 'src/slugify.js',
  oldText: "  return title.toLowerCase().replace(' ', '-');",
  newText: "  return title.trim().toLowerCase().split(/\\s+/).join('-');",
};

describe('secrets never leave the worker', () => {
  let sys: TestSystem | undefined;
  afterEach(async () => {
    delete process.env.PW_PLANTED_ENV;
    await sys?.stop();
    sys = undefined;
  });

  it('a planted token appears in no log line, transcript, event, operation, PR body or data file', async () => {
    process.env.PW_PLANTED_ENV = ENV_SECRET;
    const replay = writeTranscript([
      plan(` Careful with ${MODEL_TOKEN}.`),
      tool('run_check', { name: 'test' }),
      tool('write_file', { path: 'src/config.js', content: `export const token = '${MODEL_TOKEN}';\n` }),
      tool('edit_file', FIX),
      tool('run_check', { name: 'test' }),
      text(`Fixed. The repo prints ${REPO_TOKEN} and I saw ${MODEL_TOKEN}.`),
      text(JSON.stringify({ decision: 'accept', reasons: [`no ${MODEL_TOKEN} added`], must_fix: [] })),
    ]);
    sys = await startTestSystem({
      captureLogs: true,
      env: { GITHUB_WEBHOOK_SECRET: SERVICE_SECRET, REPLAY_FILE: replay },
    });
    const repo = await createSampleRepo(sys.runtime.localForge!, 'acme/leaky', {
      'fixtures/leak.txt': `${REPO_TOKEN}\n`,
      // The repo's own test prints the fixture and its whole environment.
      'test/leak.test.js':
        "import { readFileSync } from 'node:fs';\nimport { test } from 'node:test';\ntest('prints', () => { console.log(readFileSync('fixtures/leak.txt', 'utf8'), JSON.stringify(process.env)); });\n",
    });
    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: `slugify keeps spaces; token ${MODEL_TOKEN}`,
    });
    const { id } = (await res.json()) as { id: string };
    const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    expect(op.error).toBeUndefined();

    // The model's attempt to write the token into a file was refused, naming the rule only.
    const transcript = await sys.transcript(op.id);
    expect(transcript).toMatch(/write refused: it would add a secret \(github-pat in src\/config\.js:1 \(ghp_…\)\)/);
    // The repo's test really printed (the redacted) token, and no variable of the worker.
    expect(transcript).toContain('[redacted…');

    const pr = await sys.runtime.localForge!.getPullRequest(repo, op.pullRequest!.number);
    const everything = [
      sys.logLines.join(''),
      JSON.stringify(await sys.runtime.events.list(id)),
      JSON.stringify(await sys.runtime.store.get(id)),
      await sys.transcript(id),
      pr.body,
      ...filesUnder(sys.dataDir).map((f) => readFileSync(f, 'utf8')),
    ].join('\n');
    expect(sys.logLines.length).toBeGreaterThan(0);
    for (const secret of PLANTED) expect(everything).not.toContain(secret);
    expect(everything).not.toContain('PW_PLANTED_ENV');
  });

  it('blocks the commit when the final diff holds a secret no write introduced (a check generated it)', async () => {
    const replay = writeTranscript([
      plan(),
      tool('edit_file', FIX),
      text('Fixed.'),
      text(JSON.stringify({ decision: 'accept', reasons: [], must_fix: [] })),
    ]);
    sys = await startTestSystem({ env: { REPLAY_FILE: replay } });
    const repo = await createSampleRepo(sys.runtime.localForge!, 'acme/generated', {
      'test/generate.test.js': `import { writeFileSync } from 'node:fs';\nimport { test } from 'node:test';\ntest('writes a report', () => { writeFileSync('report.txt', 'token=' + ${JSON.stringify(CHECK_TOKEN.slice(0, 4))} + ${JSON.stringify(CHECK_TOKEN.slice(4))} + '\\n'); });\n`,
    });
    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    const { id } = (await res.json()) as { id: string };
    const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    expect(op.status).toBe('failed');
    expect(op.error).toBe('commit blocked: the change adds 1 secret(s): github-pat in report.txt:1 (ghp_…)');
    expect(op.findings).toEqual([
      expect.objectContaining({ ruleId: 'github-pat', file: 'report.txt', line: 1, preview: 'ghp_…' }),
    ]);
    expect(Object.keys(await sys.runtime.localForge!.listBranches(repo))).toEqual(['main']);
  });
});
