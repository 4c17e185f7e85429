import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { CheckResult, Operation, OperationStatus, Requester } from '@pullwright/core';
import { parseRepoPolicy } from '@pullwright/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForOperation, waitForStatus } from './support/wait-for-status.ts';

const SECRET = 'deploy-secret-for-tests-0123';
const IDENTITIES = [
  { id: 'pat', role: 'proposer', api: ['pat'], slack: ['U0PAT'] },
  { id: 'cy', role: 'committer', api: ['cy'], github: ['cy'] },
  { id: 'mia', role: 'merger', api: ['mia'], slack: ['U0MIA'], github: ['mia-gh'] },
  { id: 'max', role: 'merger', api: ['max'] },
  { id: 'dee', role: 'deployer', api: ['dee'] },
];
const SERVICE_POLICY = `
approvals: { high_risk: { not_requester: true } }
auto_approve: { enabled: true }
allow: { deploy_hosts: [127.0.0.1] }
`;
const GREEN: CheckResult[] = [
  {
    name: 'test',
    command: 'node --test',
    passed: true,
    exitCode: 0,
    durationMs: 5,
    output: '',
    failingTests: [],
    preExisting: false,
  },
];
const BASE = {
  'README.md': '# Demo\n',
  'src/app.js': 'export const app = 1;\n',
  'src/auth/login.js': 'export const TTL = 60;\n',
};

let sys: TestSystem;
let scratch: string;
let repoCount = 0;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

const waitFor = (id: string, statuses: OperationStatus[]): Promise<Operation> => waitForStatus(sys, id, statuses);

/**
 * What the run job does around the agent, with a real repository, branch, push and PR: claim
 * (the policy is read from `.pullwright.yml` at the base commit), the change, the PR, then
 * the post-PR hook (risk + auto-approval).
 */
async function openChange(options: {
  requester: Requester;
  change: Record<string, string>;
  repoPolicy?: string;
}): Promise<{ id: string; headSha: string }> {
  const forge = sys.runtime.localForge!;
  const repo = `acme/policy-${++repoCount}`;
  await forge.createRepository(repo, {
    ...BASE,
    ...(options.repoPolicy ? { '.pullwright.yml': options.repoPolicy } : {}),
  });
  const dir = path.join(scratch, repo.replace('/', '-'));
  git(scratch, 'clone', '-q', forge.repoDir(repo), dir);
  const { store } = sys.runtime;
  const created = await store.create({
    type: 'implement',
    repo,
    baseBranch: 'main',
    description: 'policy flow',
    requester: options.requester,
  });
  await store.transition(created.id, 'running', {}, { step: 'claim' });
  const policyFile = path.join(dir, '.pullwright.yml');
  await sys.runtime.approvalPolicy.atClaim(
    created.id,
    existsSync(policyFile) ? parseRepoPolicy(readFileSync(policyFile, 'utf8')) : undefined,
  );

  const branch = `agent/${created.id}`;
  git(dir, 'checkout', '-q', '-b', branch);
  for (const [file, content] of Object.entries(options.change)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  git(dir, 'add', '--all');
  git(dir, 'commit', '-q', '-m', 'change');
  git(dir, 'push', '-q', 'origin', branch);
  const diff = git(dir, 'diff', 'main', 'HEAD');
  const files = git(dir, 'diff', '--name-only', 'main', 'HEAD').trim().split('\n');
  const pr = await forge.openPullRequest({ repo, head: branch, base: 'main', title: 'change', body: '' });
  await store.transition(
    created.id,
    'awaiting_approval',
    {
      pullRequest: { number: pr.number, url: pr.url, headSha: pr.headSha },
      headSha: pr.headSha,
      filesChanged: files,
      checks: GREEN,
    },
    { pullRequest: pr.number },
  );
  await sys.runtime.approvalPolicy.afterPullRequest(created.id, diff);
  return { id: created.id, headSha: pr.headSha };
}

async function approve(id: string, user: string, headSha?: string) {
  const res = await sys.request('POST', `/v1/operations/${id}/approve`, { user, ...(headSha ? { headSha } : {}) });
  return { status: res.status, body: (await res.json()) as Operation & { error?: { code: string; message: string } } };
}

async function lastPending(id: string): Promise<string[]> {
  const events = await sys.runtime.events.list(id);
  const pending = events.filter((e) => e.type === 'approval_pending').pop();
  return (pending?.data.missing as string[]) ?? [];
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'pw-policy-flow-'));
  const policyFile = path.join(scratch, 'service-policy.yml');
  writeFileSync(policyFile, SERVICE_POLICY);
  sys = await startTestSystem({
    env: { POLICY_FILE: policyFile, IDENTITIES: JSON.stringify(IDENTITIES), DEPLOY_WEBHOOK_SECRET: SECRET },
  });
});
afterAll(async () => {
  await sys?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('policy: who approves what', () => {
  it('a requester cannot approve their own high-risk change, from any entry point', async () => {
    const { id, headSha } = await openChange({
      requester: { source: 'slack', user: 'U0MIA' },
      change: { 'src/auth/login.js': 'export const TTL = 5;\n' },
    });
    const op = await sys.runtime.store.get(id);
    expect(op.risk).toMatchObject({ level: 'high', reasons: ['security-sensitive files changed: src/auth/login.js'] });

    // mia asked in Slack and approves as her GitHub login: the same identity.
    const own = await sys.runtime.actions.approve(id, { source: 'github', user: 'mia-gh' }, headSha);
    expect(own.status).toBe('awaiting_approval');
    expect(own.approvals).toMatchObject([{ identity: 'mia', source: 'github', role: 'merger', headSha }]);
    expect(await lastPending(id)).toEqual([
      "the requester's own approval does not count for high risk",
      'high risk needs 1 approver other than the requester: 1 more',
    ]);

    const other = await approve(id, 'max', headSha);
    expect(other.status).toBe(200);
    expect(other.body.status).toBe('approved');
    expect((await waitFor(id, ['merged', 'failed'])).status).toBe('merged');
  });

  it('a .github/workflows change waits for two approvers; an approval for another sha is refused', async () => {
    const { id, headSha } = await openChange({
      requester: { source: 'api', user: 'pat' },
      change: { '.github/workflows/ci.yml': 'on: push\n' },
      repoPolicy: "path_rules:\n  - { name: workflows, paths: ['.github/workflows/**'], required: 2 }\n",
    });
    const stale = await approve(id, 'mia', 'f'.repeat(40));
    expect(stale.status).toBe(409);

    const first = await approve(id, 'mia', headSha);
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('awaiting_approval');
    expect(await lastPending(id)).toEqual(['workflows (.github/workflows/ci.yml) needs 2 approvers: 1 more']);
    // The same person again does not make two.
    expect((await approve(id, 'mia', headSha)).body.status).toBe('awaiting_approval');

    const second = await approve(id, 'max', headSha);
    expect(second.body.status).toBe('approved');
    const merged = await waitFor(id, ['merged', 'failed']);
    expect(merged.status).toBe('merged');
    expect(merged.approvals?.map((a) => a.identity)).toEqual(['mia', 'mia', 'max']);
  });

  it("a proposer's operation cannot be merged without a merger", async () => {
    const { id, headSha } = await openChange({
      requester: { source: 'api', user: 'pat' },
      change: { 'src/app.js': 'export const app = 2;\n' },
    });
    const self = await approve(id, 'pat', headSha);
    expect(self.status).toBe(403);
    expect(self.body.error).toEqual({
      code: 'forbidden',
      message: 'pat may not approve: that needs the committer role (pat has the proposer role)',
    });
    const stranger = await approve(id, 'nobody', headSha);
    expect(stranger.status).toBe(403);
    expect(stranger.body.error?.message).toBe(
      'api:nobody may not approve: that needs the committer role (api:nobody has no role)',
    );

    const review = await approve(id, 'cy', headSha);
    expect(review.body.status).toBe('awaiting_approval');
    expect(await lastPending(id)).toEqual(['needs an approval from a merger (or higher) to merge']);

    expect((await approve(id, 'mia', headSha)).body.status).toBe('approved');
    expect((await waitFor(id, ['merged', 'failed'])).status).toBe('merged');
  });

  it('a docs-only change is auto-approved by the policy and merged', async () => {
    const { id, headSha } = await openChange({
      requester: { source: 'api', user: 'pat' },
      change: { 'docs/usage.md': '# Usage\n\nCall app.\n' },
      repoPolicy: 'auto_approve: { enabled: true }\n',
    });
    const merged = await waitFor(id, ['merged', 'failed']);
    expect(merged.status).toBe('merged');
    expect(merged.risk).toMatchObject({ level: 'low', reasons: ['only docs changed'], headSha });
    expect(merged.approvals).toEqual([
      expect.objectContaining({
        identity: 'policy',
        source: 'policy',
        headSha,
        rule: 'auto_approve: ≤ 20 lines of tests/docs, checks green',
      }),
    ]);
    expect(merged.approval).toMatchObject({ by: 'policy', source: 'policy', headSha });
  });

  it('a source change is not auto-approved, and the timeline says why', async () => {
    const { id } = await openChange({
      requester: { source: 'api', user: 'pat' },
      change: { 'src/app.js': 'export const app = 3;\n' },
      repoPolicy: 'auto_approve: { enabled: true }\n',
    });
    expect((await sys.runtime.store.get(id)).status).toBe('awaiting_approval');
    const events = await sys.runtime.events.list(id);
    expect(events.find((e) => e.type === 'auto_approval')?.data.reasons).toEqual([
      'not only tests/docs: src/app.js (source)',
    ]);
  });

  it('REST requests go through the same policy: a caller without a role is refused, naming the role', async () => {
    const repo = `acme/policy-${++repoCount}`;
    await sys.runtime.localForge!.createRepository(repo, BASE);
    const refused = await sys.request('POST', '/v1/operations', {
      type: 'fix',
      repo,
      description: 'x',
      user: 'stranger',
    });
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('forbidden');
    expect(body.error.message).toMatch(/proposer/);
    const allowed = await sys.request('POST', '/v1/operations', { type: 'fix', repo, description: 'x', user: 'pat' });
    expect(allowed.status).toBe(202);
  });

  it('a repository file that raises who may request refuses the requester at claim time', async () => {
    await expect(
      openChange({
        requester: { source: 'api', user: 'pat' },
        change: { 'docs/a.md': 'a\n' },
        repoPolicy: 'permissions: { request: committer }\n',
      }),
    ).rejects.toThrow('pat may not request operations: that needs the committer role (pat has the proposer role)');
    await expect(
      sys.runtime.actions.create({
        type: 'fix',
        repo: 'acme/policy-1',
        baseBranch: 'main',
        description: 'x',
        requester: { source: 'github', user: 'stranger' },
      }),
    ).rejects.toThrow('github:stranger may not request operations: that needs the proposer role');
  });

  it('permissions.revise decides who may ask for a revision or steer the model, from every surface', async () => {
    const { id } = await openChange({
      requester: { source: 'api', user: 'cy' },
      change: { 'docs/a.md': 'a\n' },
      repoPolicy: 'permissions: { revise: merger }\n',
    });
    const feedback = [{ id: 1, kind: 'issue_comment' as const, user: 'cy', body: 'shorter please' }];
    // GitHub (the webhook handlers call this), Slack thread replies and REST messages all ask `revise`.
    await expect(
      sys.runtime.actions.revise(id, { user: 'cy', source: 'github' }, { requestId: 'r1', feedback }),
    ).rejects.toThrow(/cy may not .* that needs the merger role \(cy has the committer role\)/);
    await expect(sys.runtime.actions.steer(id, { user: 'U0PAT', source: 'slack' })).rejects.toThrow(
      /needs the merger role/,
    );
    const refused = await sys.request('POST', `/v1/operations/${id}/messages`, { text: 'hi', user: 'pat' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/needs the merger role/);
    const jobId = await sys.runtime.actions.revise(
      id,
      { user: 'mia-gh', source: 'github' },
      { requestId: 'r2', feedback },
    );
    expect(await sys.runtime.queue.queue.getJob(jobId)).toBeDefined();
  });

  it('a bad .pullwright.yml fails at claim with the field and reason', async () => {
    await expect(
      openChange({
        requester: { source: 'api', user: 'pat' },
        change: { 'docs/a.md': 'a\n' },
        repoPolicy: "path_rules:\n  - { paths: ['migrations/**'], required: 0 }\n",
      }),
    ).rejects.toThrow('.pullwright.yml is invalid: .pullwright.yml.path_rules.0.required: must be at least 1');
  });
});

describe('policy: deploy after merge', () => {
  interface Hit {
    path: string;
    body: string;
    headers: Record<string, string | string[] | undefined>;
  }
  let server: Server;
  let base: string;
  const hits: Hit[] = [];
  let deployOutcome = 'failed';

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        hits.push({ path: req.url ?? '', body, headers: req.headers });
        res.setHeader('content-type', 'application/json');
        if (req.url === '/deploy') res.end(JSON.stringify({ id: `d${hits.length}`, status: 'queued' }));
        else if (req.url?.startsWith('/status/')) res.end(JSON.stringify({ status: deployOutcome }));
        else if (req.url === '/rollback') res.end('{}');
        else {
          res.statusCode = 404;
          res.end('{}');
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const deployPolicy = () => `
auto_approve: { enabled: true }
deploy:
  target: { kind: webhook, url: '${base}/deploy' }
  rollback: { url: '${base}/rollback' }
  status: { url: '${base}/status/{id}', poll_ms: 100, timeout_ms: 5000 }
`;

  it('calls the signed deploy hook after merge, reports the failure and calls the rollback hook', async () => {
    hits.length = 0;
    deployOutcome = 'failed';
    const { id, headSha } = await openChange({
      requester: { source: 'api', user: 'pat' },
      change: { 'docs/deploy.md': 'Deploys.\n' },
      repoPolicy: deployPolicy(),
    });
    await waitFor(id, ['merged', 'failed']);
    // The merge job deploys once the operation is merged; wait for the deploy to settle.
    let done = await sys.runtime.store.get(id);
    for (let i = 0; i < 200 && (!done.deploy || done.deploy.status === 'running'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      done = await sys.runtime.store.get(id);
    }
    expect(done.deploy).toMatchObject({
      status: 'rolled_back',
      target: 'webhook',
      by: 'merge',
      externalId: 'd1',
      error: 'the deploy failed',
    });

    expect(hits.map((h) => h.path)).toEqual(['/deploy', '/status/d1', '/rollback']);
    const hook = hits[0]!;
    const ts = hook.headers['x-pullwright-timestamp'] as string;
    const expected = `sha256=${createHmac('sha256', SECRET).update(`${ts}.${hook.body}`).digest('hex')}`;
    expect(hook.headers['x-pullwright-signature-256']).toBe(expected);
    const payload = JSON.parse(hook.body) as Record<string, unknown>;
    expect(payload).toMatchObject({ event: 'deploy', operation: id, ref: 'main', headSha, requestedBy: 'merge' });
    expect(payload.mergeSha).toMatch(/^[0-9a-f]{40}$/);
    expect(JSON.parse(hits[2]!.body)).toMatchObject({ event: 'rollback', operation: id, reason: 'the deploy failed' });
    expect(hits[2]!.headers['x-pullwright-event']).toBe('rollback');

    const steps = (await sys.runtime.events.list(id)).filter((e) => e.type === 'deploy').map((e) => e.data.step);
    expect(steps).toEqual(['started', 'triggered', 'status', 'failed', 'rollback_started', 'rolled_back']);
  });

  it('POST /v1/operations/:id/deploy is for deployers; a successful deploy is reported', async () => {
    hits.length = 0;
    deployOutcome = 'success';
    const { id } = await openChange({
      requester: { source: 'api', user: 'pat' },
      change: { 'docs/again.md': 'Again.\n' },
      repoPolicy: deployPolicy().replace('deploy:\n', 'deploy:\n  on_merge: false\n'),
    });
    await waitFor(id, ['merged', 'failed']);
    expect(await sys.runtime.deployer.deployAfterMerge(id)).toBeUndefined();

    const refused = await sys.request('POST', `/v1/operations/${id}/deploy`, { user: 'mia' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'mia may not deploy: that needs the deployer role (mia has the merger role)',
    );

    const started = await sys.request('POST', `/v1/operations/${id}/deploy`, { user: 'dee' });
    expect(started.status).toBe(202);
    expect(((await started.json()) as Operation).deploy).toMatchObject({ status: 'running', by: 'dee' });
    const again = await sys.request('POST', `/v1/operations/${id}/deploy`, { user: 'dee' });
    expect(again.status).toBe(409);

    const op = await waitForOperation(sys, id, (o) => o.deploy?.status !== 'running');
    expect(op.deploy).toMatchObject({ status: 'succeeded', by: 'dee', externalId: 'd1' });
    expect(hits.map((h) => h.path)).toEqual(['/deploy', '/status/d1']);
  });

  it('refuses /deploy for an operation that is not merged', async () => {
    const { id } = await openChange({
      requester: { source: 'api', user: 'pat' },
      change: { 'src/app.js': 'export const app = 4;\n' },
      repoPolicy: deployPolicy(),
    });
    const res = await sys.request('POST', `/v1/operations/${id}/deploy`, { user: 'dee' });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      'only a merged operation can deploy; this one is awaiting_approval',
    );
  });
});
