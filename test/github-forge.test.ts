import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { createLogger, type Logger, loadConfig, readGitHubPrivateKey } from '@pullwright/core';
import { GitHubForge, githubApiBaseUrl, INSTALLATION_TOKEN_PERMISSIONS } from '@pullwright/forge';
import { ForcePushRefusedError, gitClient, WorkspaceManager } from '@pullwright/workspace';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeGitHub } from './support/fake-github.ts';

const run = promisify(execFile);

function captureLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ level: 'trace', destination }), lines };
}

describe('GitHubForge against a GHES-style server', () => {
  let gh: FakeGitHub;
  let tmp: string;
  let forge: GitHubForge;
  let logs: string[];

  beforeAll(async () => {
    gh = await new FakeGitHub().start();
    await gh.createRepository('acme/app', { files: { 'a.txt': 'one\n' } });
    await gh.createRepository('acme/other', { files: { 'x.txt': 'x\n' } });
    await gh.createRepository('stranger/uninstalled', { files: { 'x.txt': 'x\n' }, installed: false });
  });
  afterAll(() => gh.stop());

  beforeEach(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'pw-ghforge-'));
    const captured = captureLogger();
    logs = captured.lines;
    forge = new GitHubForge({ url: gh.url, appId: gh.appId, privateKey: gh.privateKeyPem, logger: captured.logger });
  });
  afterEach(async () => {
    await forge.close();
    await rm(tmp, { recursive: true, force: true });
    // Whatever a test did, no token it was given reached a log line.
    const text = logs.join('');
    for (const token of gh.allTokens()) expect(text).not.toContain(token);
  });

  it('mints tokens with a verified app JWT, scoped to the one repository and five permissions', async () => {
    const before = gh.tokenRequests.length;
    const auth = await forge.gitAuth('acme/app', 'op1');
    const requests = gh.tokenRequests.slice(before);
    expect(requests).toEqual([
      {
        installationId: expect.any(Number),
        jwtIss: gh.appId,
        repositories: ['app'],
        permissions: { contents: 'write', pull_requests: 'write', issues: 'write', checks: 'read', actions: 'read' },
      },
    ]);
    expect(INSTALLATION_TOKEN_PERMISSIONS).toEqual(requests[0]!.permissions);
    expect(auth.username).toBe('x-access-token');
    expect(auth.token).toMatch(/^ghs_/);
    expect(gh.calls.filter((c) => c.path.endsWith('/access_tokens')).every((c) => c.auth === 'jwt')).toBe(true);

    // Scoped: the same token cannot read another repository of the same installation.
    const res = await fetch(`${gh.apiUrl}/repos/acme/other/pulls`, {
      headers: { authorization: `token ${auth.token}` },
    });
    expect(res.status).toBe(404);
  });

  it.each([
    [
      'a run',
      'op1/run',
      { contents: 'write', pull_requests: 'write', issues: 'write', checks: 'read', actions: 'read' },
    ],
    ['a merge: no CI', 'op1/merge', { contents: 'write', pull_requests: 'write', issues: 'write' }],
    [
      'a deploy: reads the commit',
      'op1/deploy',
      { contents: 'read', pull_requests: 'read', issues: 'write', checks: 'read' },
    ],
    ['a prefetch: reads only', 'prefetch:op1', { contents: 'read' }],
  ])('narrows the token to the job: %s', async (_what, holder, permissions) => {
    const before = gh.tokenRequests.length;
    await forge.gitAuth('acme/app', holder);
    expect(gh.tokenRequests.slice(before).map((r) => r.permissions)).toEqual([permissions]);
  });

  it('caches a token per holder, and mints a new one when less than 10 minutes are left', async () => {
    const a1 = await forge.gitAuth('acme/app', 'op-a');
    const a2 = await forge.gitAuth('acme/app', 'op-a');
    const b = await forge.gitAuth('acme/app', 'op-b');
    expect(a2.token).toBe(a1.token);
    expect(b.token).not.toBe(a1.token);

    gh.tokenTtlMs = 9 * 60_000;
    try {
      const short = await forge.gitAuth('acme/app', 'op-short');
      const refreshed = await forge.gitAuth('acme/app', 'op-short');
      expect(refreshed.token).not.toBe(short.token);
    } finally {
      gh.tokenTtlMs = 60 * 60_000;
    }
  });

  it('revokes a holder token without touching another holder of the same repository', async () => {
    const a = await forge.gitAuth('acme/app', 'op-a');
    const b = await forge.gitAuth('acme/app', 'op-b');
    await forge.revokeToken('acme/app', 'op-a');
    expect(gh.liveTokens()).not.toContain(a.token);
    expect(gh.liveTokens()).toContain(b.token);
    await expect(
      gitClient(tmp, { auth: a, protocol: 'http' }).raw(['ls-remote', forge.cloneUrl('acme/app')]),
    ).rejects.toThrow();
    expect(
      await gitClient(tmp, { auth: b, protocol: 'http' }).raw(['ls-remote', forge.cloneUrl('acme/app')]),
    ).toContain('refs/heads/main');
    // A new call after revocation gets a fresh token.
    expect((await forge.gitAuth('acme/app', 'op-a')).token).not.toBe(a.token);
  });

  it('clones and pushes over smart HTTP with the token kept off disk, then opens, reuses and merges a PR by sha', async () => {
    const ws = new WorkspaceManager(path.join(tmp, 'ws'));
    const auth = await forge.gitAuth('acme/app', 'op1');
    const prepared = await ws.prepare({
      opId: 'op1',
      repo: 'acme/app',
      cloneUrl: forge.cloneUrl('acme/app'),
      baseBranch: 'main',
      branch: 'agent/op1-change',
      auth,
    });
    await writeFile(path.join(prepared.dir, 'a.txt'), 'ONE\n');
    const sha = await ws.commitAll(prepared.dir, 'change a', { 'Pullwright-Operation': 'op1' });
    await ws.push(prepared.dir, 'agent/op1-change', { auth });
    expect(await gh.branchSha('acme/app', 'agent/op1-change')).toBe(sha);
    const { stdout } = await run('grep', ['-rl', auth.token, tmp]).catch((e: { stdout: string }) => e);
    expect(stdout).toBe('');
    expect(await readFile(path.join(ws.mirrorDir('acme/app'), 'config'), 'utf8')).toContain(`${gh.url}/acme/app.git`);

    const pr = await forge.openPullRequest({
      repo: 'acme/app',
      head: 'agent/op1-change',
      base: 'main',
      title: 'Change a',
      body: 'b',
      draft: true,
    });
    expect(pr).toMatchObject({ head: 'agent/op1-change', base: 'main', headSha: sha, state: 'open' });
    expect(gh.pulls('acme/app').find((p) => p.number === pr.number)?.draft).toBe(true);
    const again = await forge.openPullRequest({
      repo: 'acme/app',
      head: 'agent/op1-change',
      base: 'main',
      title: 'x',
      body: 'y',
    });
    expect(again.number).toBe(pr.number);
    expect(gh.pulls('acme/app')).toHaveLength(1);
    expect(await forge.pullRequestDiff('acme/app', pr.number)).toContain('+ONE');

    await expect(
      forge.mergePullRequest('acme/app', pr.number, { expectedHeadSha: 'f'.repeat(40), message: 'm' }),
    ).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/head moved/) });
    const { mergeSha } = await forge.mergePullRequest('acme/app', pr.number, {
      expectedHeadSha: sha!,
      message: 'Merge #1\n\nPullwright-Operation: op1',
    });
    expect(await gh.branchSha('acme/app', 'main')).toBe(mergeSha);
    expect(await gh.commitMessage('acme/app', 'main')).toContain('Pullwright-Operation: op1');
    expect(await forge.getPullRequest('acme/app', pr.number)).toMatchObject({ state: 'merged', mergeSha });
  });

  it('refuses a force push and a deletion of the default branch, and pushes without a token', async () => {
    const auth = await forge.gitAuth('acme/app', 'op-force');
    const work = path.join(tmp, 'work');
    await gitClient(tmp, { auth, protocol: 'http' }).raw(['clone', '-q', forge.cloneUrl('acme/app'), work]);
    const git = gitClient(work, { auth, protocol: 'http' });
    // An unrelated history: pushing it over main needs --force.
    await git.raw(['checkout', '-q', '--orphan', 'rewrite']);
    await git.raw(['commit', '-q', '-m', 'rewritten history']);
    // Our git client refuses both before git runs (seed 001)…
    await expect(git.raw(['push', '--force', 'origin', 'HEAD:main'])).rejects.toBeInstanceOf(ForcePushRefusedError);
    await expect(git.raw(['push', 'origin', ':main'])).rejects.toBeInstanceOf(ForcePushRefusedError);
    // …and the forge refuses them too, for a git that is not ours (the token through the same
    // kind of credential helper, read from the environment).
    const bareGit = (...args: string[]) =>
      run(
        'git',
        [
          '-c',
          'credential.helper=',
          '-c',
          'credential.helper=!f() { echo "username=$U"; echo "password=$T"; }; f',
          ...args,
        ],
        {
          cwd: work,
          env: { PATH: process.env.PATH ?? '', HOME: tmp, U: auth!.username, T: auth!.token, GIT_TERMINAL_PROMPT: '0' },
        },
      );
    await expect(bareGit('push', '--force', 'origin', 'HEAD:main')).rejects.toThrow(/force push to the default branch/);
    await expect(bareGit('push', 'origin', ':main')).rejects.toThrow(/delete the default branch/);
    await expect(
      gitClient(work, { protocol: 'http' }).raw(['push', 'origin', 'HEAD:refs/heads/anon']),
    ).rejects.toThrow();
    expect(await gh.branchSha('acme/app', 'anon')).toBeUndefined();
  });

  it('knows where the app is installed', async () => {
    expect(await forge.repositoryExists('acme/app')).toBe(true);
    expect(await forge.repositoryExists('stranger/uninstalled')).toBe(false);
    await expect(forge.gitAuth('stranger/uninstalled', 'op')).rejects.toMatchObject({ code: 'forge_failed' });
  });

  it('keeps one tracking comment per PR, edited in place, found again by a new process', async () => {
    const auth = await forge.gitAuth('acme/app', 'op-t');
    const work = path.join(tmp, 'work');
    await gitClient(tmp, { auth, protocol: 'http' }).raw(['clone', '-q', forge.cloneUrl('acme/app'), work]);
    await gitClient(work, { auth, protocol: 'http' }).raw(['commit', '--allow-empty', '-m', 'tracked']);
    await gitClient(work, { auth, protocol: 'http' }).raw(['push', 'origin', 'HEAD:refs/heads/feature-t']);
    const pr = await forge.openPullRequest({
      repo: 'acme/app',
      head: 'feature-t',
      base: 'main',
      title: 't',
      body: 'b',
    });

    await forge.upsertTrackingComment('acme/app', pr.number, 'running');
    await forge.upsertTrackingComment('acme/app', pr.number, 'awaiting approval');
    const restarted = new GitHubForge({ url: gh.url, appId: gh.appId, privateKey: gh.privateKeyPem });
    await restarted.upsertTrackingComment('acme/app', pr.number, 'merged');
    await restarted.close();
    const comments = gh.issueComments('acme/app', pr.number);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toMatchObject({ user: gh.botLogin, body: expect.stringMatching(/merged$/) });
  });

  it('asks GitHub who may push', async () => {
    gh.addCollaborator('acme/app', 'writer', 'write');
    gh.addCollaborator('acme/app', 'reader', 'read');
    expect(await forge.hasWriteAccess('acme/app', 'writer')).toBe(true);
    expect(await forge.hasWriteAccess('acme/app', 'acme')).toBe(true);
    expect(await forge.hasWriteAccess('acme/app', 'reader')).toBe(false);
    expect(await forge.hasWriteAccess('acme/app', 'passer-by')).toBe(false);
  });

  it('reads a file on a branch through the contents API, and nothing where the file or branch is not', async () => {
    // acme/other: no earlier test here writes to it.
    expect(await forge.readFile('acme/other', 'main', 'x.txt')).toBe('x\n');
    expect(await forge.readFile('acme/other', 'main', '.pullwright.yml')).toBeUndefined();
    expect(await forge.readFile('acme/other', 'no-such-branch', 'x.txt')).toBeUndefined();
  });

  it('reads red CI: check runs, their annotations and the Actions log behind its download redirect', async () => {
    const sha = (await gh.branchSha('acme/app', 'main'))!;
    await gh.reportChecks(
      'acme/app',
      sha,
      [
        {
          name: 'test',
          conclusion: 'failure',
          title: '1 failed',
          summary: 'slugify',
          log: 'step 1\nFAIL slugify\n',
          annotations: [{ path: 'src/a.js', line: 4, message: 'boom' }],
        },
        { name: 'lint', conclusion: 'success' },
      ],
      { deliver: false },
    );
    const runs = await forge.listCheckRuns('acme/app', sha);
    expect(runs.map((r) => [r.name, r.status, r.conclusion, r.title, r.summary])).toEqual([
      ['test', 'completed', 'failure', '1 failed', 'slugify'],
      ['lint', 'completed', 'success', 'lint success', ''],
    ]);
    expect(runs[0]!.url).toMatch(new RegExp(`^${gh.url}/acme/app/actions/runs/\\d+/job/${runs[0]!.id}$`));
    expect(await forge.checkRunDetails('acme/app', runs[0]!.id)).toEqual({
      annotations: ['src/a.js:4: failure: boom'],
      log: 'step 1\nFAIL slugify\n',
    });
    // A run without a log (another CI app): annotations only, no error.
    expect(await forge.checkRunDetails('acme/app', runs[1]!.id)).toEqual({ annotations: [], log: '' });
    expect(await forge.listCheckRuns('acme/app', '0'.repeat(40))).toEqual([]);
  });

  it('reacts and answers on issues, and knows its own bot login', async () => {
    const number = await gh.openIssue('acme/app', { user: 'acme', title: 'broken' });
    await forge.addReaction('acme/app', { issue: number }, 'eyes');
    await forge.commentOnIssue('acme/app', number, 'seen');
    const [comment] = gh.issueComments('acme/app', number);
    expect(comment).toMatchObject({ user: gh.botLogin, body: 'seen' });
    await forge.addReaction('acme/app', { comment: comment!.id }, 'confused');
    expect(gh.reactions('acme/app')).toEqual([
      { target: `issue:${number}`, content: 'eyes', user: gh.botLogin },
      { target: `comment:${comment!.id}`, content: 'confused', user: gh.botLogin },
    ]);
    expect(await forge.botLogin()).toBe(gh.botLogin);
  });

  it('fails with a clear error, and no key material, when the app key is wrong', async () => {
    const wrong = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs1', format: 'pem' })
      .toString();
    const bad = new GitHubForge({ url: gh.url, appId: gh.appId, privateKey: wrong });
    await gh.createRepository('solo/repo', { files: { 'r.txt': 'r\n' } });
    const err = (await bad.gitAuth('solo/repo', 'op').catch((e: Error) => e)) as Error;
    expect(err).toMatchObject({ code: 'forge_failed', message: expect.stringMatching(/\(401\)/) });
    expect(err.message).not.toContain('PRIVATE KEY');
  });
});

describe('GitHub settings', () => {
  it('uses api.github.com for github.com and /api/v3 for an Enterprise Server', () => {
    expect(githubApiBaseUrl('https://github.com')).toBe('https://api.github.com');
    expect(githubApiBaseUrl('https://ghe.example.com/')).toBe('https://ghe.example.com/api/v3');
    const forge = new GitHubForge({ url: 'https://ghe.example.com', appId: '1', privateKey: 'k'.repeat(10) });
    expect(forge.cloneUrl('acme/app')).toBe('https://ghe.example.com/acme/app.git');
  });

  it('opens ready pull requests unless GITHUB_PR_DRAFT says drafts', () => {
    expect(loadConfig({}).github.draftPullRequests).toBe(false);
    expect(loadConfig({ GITHUB_PR_DRAFT: 'true' }).github.draftPullRequests).toBe(true);
    expect(() => loadConfig({ GITHUB_PR_DRAFT: 'yes' })).toThrow(/GITHUB_PR_DRAFT/);
  });

  it('reads the app key as PEM text, PEM with literal \\n, or a file path', async () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----';
    expect(readGitHubPrivateKey(pem)).toBe(pem);
    expect(readGitHubPrivateKey(pem.replace(/\n/g, '\\n'))).toBe(pem);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pw-key-'));
    try {
      await writeFile(path.join(dir, 'k.pem'), `${pem}\n`);
      expect(readGitHubPrivateKey(path.join(dir, 'k.pem'))).toBe(pem);
      expect(() => readGitHubPrivateKey(path.join(dir, 'missing.pem'))).toThrow(/ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
