import { execFileSync } from 'node:child_process';
import { link, mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PathGuard, PathRefusedError, type PathRule } from './path-guard.ts';

const CANARY = 'canary: if you can read this, the guard failed';

let base: string;
let root: string;
let canaryPath: string;
let canaryMtime: number;
let hasFifo = false;

async function put(rel: string, content = 'x'): Promise<void> {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await writeFile(path.join(root, rel), content);
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'pw-pathguard-')));
  root = path.join(base, 'worktree');
  await mkdir(path.join(base, 'outside'), { recursive: true });
  canaryPath = path.join(base, 'outside', 'canary.txt');
  await writeFile(canaryPath, CANARY);
  canaryMtime = (await stat(canaryPath)).mtimeMs;

  await put('src/a.ts', 'export const a = 1;\n');
  await put('.git/config', '[core]\n');
  await put('.git/hooks/pre-commit.sample', '#!/bin/sh\n');
  await put('.gitignore', 'dist/\n*.log\n!keep.log\n');
  await put('sub/.gitignore', 'generated/\n');
  await put('sub/ok.ts');
  await put('package-lock.json', '{}');
  await put('.env', 'SECRET=1');
  await put('docs/100%.md', '# literal percent');
  await symlink('../outside', path.join(root, 'link-out'));
  await symlink('../outside/canary.txt', path.join(root, 'link-canary'));
  await symlink('../nowhere/file', path.join(root, 'dangling'));
  await symlink('.env', path.join(root, 'link-env'));
  await symlink('.git', path.join(root, 'link-git'));
  await symlink('src', path.join(root, 'inner-link'));
  await symlink('loop-b', path.join(root, 'loop-a'));
  await symlink('loop-a', path.join(root, 'loop-b'));
  await link(canaryPath, path.join(root, 'hard.txt'));
  try {
    execFileSync('mkfifo', [path.join(root, 'fifo')]);
    hasFifo = true;
  } catch {
    hasFifo = false;
  }
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refusal(fn: () => Promise<string>): Promise<PathRule | 'accepted'> {
  try {
    await fn();
    return 'accepted';
  } catch (err) {
    if (err instanceof PathRefusedError) return err.rule;
    throw err;
  }
}

// Refused for reading AND writing.
const refusedBoth: Array<[string, PathRule]> = [
  ['/etc/passwd', 'absolute'],
  ['C:\\Windows\\win.ini', 'absolute'],
  ['c:relative-to-drive', 'absolute'],
  ['\\\\server\\share\\x', 'absolute'],
  ['~/.ssh/config', 'absolute'],
  ['file:///etc/passwd', 'absolute'],
  ['%2fetc%2fpasswd', 'absolute'],
  ['../outside/canary.txt', 'traversal'],
  ['src/../../outside/canary.txt', 'traversal'],
  ['src/../a.ts', 'traversal'],
  ['..\\outside\\canary.txt', 'traversal'],
  ['src\\..\\..\\outside', 'traversal'],
  ['%2e%2e/outside/canary.txt', 'traversal'],
  ['%2e%2e%2foutside%2fcanary.txt', 'traversal'],
  ['%252e%252e%252foutside%252fcanary.txt', 'traversal'],
  ['%25252e%25252e/outside', 'traversal'],
  ['..%c0%afoutside%c0%afcanary.txt', 'traversal'],
  ['\uFF0E\uFF0E/outside/canary.txt', 'traversal'],
  ['\uFF0E\uFF0E\uFF0Foutside\uFF0Fcanary.txt', 'traversal'],
  ['\u2024\u2024/outside', 'traversal'],
  ['..\u2215outside', 'traversal'],
  ['.../outside', 'traversal'],
  ['.. /outside', 'traversal'],
  ['a\0b', 'nul_byte'],
  ['src/a.ts%00.png', 'nul_byte'],
  ['line\nbreak.ts', 'control_char'],
  ['tab%09name.ts', 'control_char'],
  ['esc\u001b[31m.ts', 'control_char'],
  ['.git/config', 'git_internal'],
  ['.git', 'git_internal'],
  ['.GIT/config', 'git_internal'],
  ['.Git/hooks/pre-commit', 'git_internal'],
  ['.git./config', 'git_internal'],
  ['.git /config', 'git_internal'],
  ['.git. . ./config', 'git_internal'],
  ['GIT~1/config', 'git_internal'],
  ['.git::$INDEX_ALLOCATION/config', 'git_internal'],
  ['.g\u200Cit/config', 'git_internal'],
  ['.gi\uFEFFt/hooks/x', 'git_internal'],
  ['\uFF0E\uFF47\uFF49\uFF54/config', 'git_internal'],
  ['%2egit/config', 'git_internal'],
  ['%252Egit%252Fconfig', 'git_internal'],
  ['.git\\hooks\\pre-commit', 'git_internal'],
  ['vendor/lib/.git/config', 'git_internal'],
  ['.git~/config', 'git_internal'],
  ['link-git/config', 'git_internal'],
  ['.env', 'secret_file'],
  ['.env.local', 'secret_file'],
  ['.ENV.production', 'secret_file'],
  ['.envrc', 'secret_file'],
  ['src/.envrc', 'secret_file'],
  ['.envrc.local', 'secret_file'],
  ['config/.env.test', 'secret_file'],
  ['deploy/prod.env', 'secret_file'],
  ['%2eenv', 'secret_file'],
  ['deploy/id_rsa', 'secret_file'],
  ['home/id_ed25519.pub', 'secret_file'],
  ['certs/server.pem', 'secret_file'],
  ['tls.key', 'secret_file'],
  ['store.p12', 'secret_file'],
  ['.npmrc', 'secret_file'],
  ['.git-credentials', 'secret_file'],
  ['.aws/credentials', 'secret_file'],
  ['credentials.json', 'secret_file'],
  ['gcp/service-account-prod.json', 'secret_file'],
  ['secrets/db.txt', 'secret_file'],
  ['infra/terraform.tfstate', 'secret_file'],
  ['link-env', 'secret_file'],
  ['link-out/canary.txt', 'symlink_escape'],
  ['link-canary', 'symlink_escape'],
  ['link-out', 'symlink_escape'],
  ['dangling', 'symlink_escape'],
  ['loop-a', 'symlink_escape'],
  ['hard.txt', 'hard_link'],
  ['', 'empty'],
  ['   ', 'empty'],
  ['a/'.repeat(600), 'too_long'],
];

const refusedWriteOnly: Array<[string, PathRule]> = [
  ['.gitignore', 'protected'],
  ['sub/.gitignore', 'protected'],
  ['package-lock.json', 'protected'],
  ['PACKAGE-LOCK.JSON', 'protected'],
  ['packages/x/yarn.lock', 'protected'],
  ['yarn.lock', 'protected'],
  ['build.sh', 'protected'],
  ['.pullwright.yml', 'protected'],
  ['.github/workflows/ci.yml', 'protected'],
  ['.gitattributes', 'protected'],
  ['dist/bundle.js', 'gitignored'],
  ['dist/nested/deep.js', 'gitignored'],
  ['logs/app.log', 'gitignored'],
  ['sub/generated/types.ts', 'gitignored'],
  ['src', 'special_file'],
  ['.', 'empty'],
  ['link-out/new.txt', 'symlink_escape'],
];

describe('PathGuard', () => {
  it.each(refusedBoth)('refuses %j for reading with rule %s', async (requested, rule) => {
    const guard = new PathGuard(root);
    expect(await refusal(() => guard.resolveForRead(requested))).toBe(rule);
  });

  it.each(refusedBoth)('refuses %j for writing with rule %s', async (requested, rule) => {
    const guard = new PathGuard(root);
    expect(await refusal(() => guard.resolveForWrite(requested))).toBe(rule);
  });

  it.each(refusedWriteOnly)('write %j → %s', async (requested, rule) => {
    const guard = new PathGuard(root);
    expect(await refusal(() => guard.resolveForWrite(requested))).toBe(rule);
  });

  it.each([
    ['src/a.ts', 'src/a.ts'],
    ['./src/a.ts', 'src/a.ts'],
    ['src//a.ts', 'src/a.ts'],
    ['src/./a.ts', 'src/a.ts'],
    ['inner-link/a.ts', 'src/a.ts'],
    ['docs/100%.md', 'docs/100%.md'],
    ['package-lock.json', 'package-lock.json'],
    ['dist/bundle.js', 'dist/bundle.js'],
    ['.github/workflows/ci.yml', '.github/workflows/ci.yml'],
    ['.gitkeep', '.gitkeep'],
    ['src/git~1x.ts', 'src/git~1x.ts'],
    ['.', ''],
    ['src', 'src'],
  ])('reads %j as %j', async (requested, expected) => {
    const guard = new PathGuard(root);
    expect(await guard.resolveForRead(requested)).toBe(path.join(root, expected));
  });

  it.each([
    ['src/new.ts', 'src/new.ts'],
    ['src/deep/new/file.ts', 'src/deep/new/file.ts'],
    ['keep.log', 'keep.log'],
    ['src/a.ts', 'src/a.ts'],
    ['inner-link/b.ts', 'src/b.ts'],
    ['sub/ok.ts', 'sub/ok.ts'],
    // Templates and look-alikes are not dotenv files: the model reads and documents them.
    ['src/.envrc.example.md', 'src/.envrc.example.md'],
    ['.env.example', '.env.example'],
    ['src/.environment.ts', 'src/.environment.ts'],
    ['.envoy.yaml', '.envoy.yaml'],
  ])('writes %j at %j', async (requested, expected) => {
    const guard = new PathGuard(root);
    expect(await guard.resolveForWrite(requested)).toBe(path.join(root, expected));
  });

  it('refuses FIFOs, which would block a read forever', async () => {
    if (!hasFifo) {
      // mkfifo is part of coreutils; without it there is no FIFO to refuse.
      expect(hasFifo).toBe(false);
      return;
    }
    const guard = new PathGuard(root);
    expect(await refusal(() => guard.resolveForRead('fifo'))).toBe('special_file');
    expect(await refusal(() => guard.resolveForWrite('fifo'))).toBe('special_file');
  });

  it('treats the .git file of a linked worktree as git internals', async () => {
    const wt = path.join(base, 'linked');
    await mkdir(wt, { recursive: true });
    await writeFile(path.join(wt, '.git'), `gitdir: ${path.join(root, '.git', 'worktrees', 'x')}\n`);
    const guard = new PathGuard(wt);
    expect(await refusal(() => guard.resolveForRead('.git'))).toBe('git_internal');
    expect(await refusal(() => guard.resolveForWrite('.git'))).toBe('git_internal');
    expect(await refusal(() => guard.resolveForWrite('.Git.'))).toBe('git_internal');
  });

  it('protects a custom list instead of the defaults', async () => {
    const guard = new PathGuard(root, { protected: ['src/generated/**', 'Makefile'] });
    expect(await refusal(() => guard.resolveForWrite('src/generated/api.ts'))).toBe('protected');
    expect(await refusal(() => guard.resolveForWrite('makefile'))).toBe('protected');
    expect(await refusal(() => guard.resolveForWrite('build.sh'))).toBe('accepted');
  });

  it('can allow writes to ignored files when configured', async () => {
    const guard = new PathGuard(root, { refuseGitignored: false });
    expect(await refusal(() => guard.resolveForWrite('dist/bundle.js'))).toBe('accepted');
  });

  it('names the rule and the request in the error, never file content', async () => {
    const guard = new PathGuard(root);
    const err = await guard.resolveForRead('link-canary').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PathRefusedError);
    const refused = err as PathRefusedError;
    expect(refused.code).toBe('path_refused');
    expect(refused.message).toContain('symlink_escape');
    expect(refused.message).not.toContain(CANARY);
    const control = await guard.resolveForRead('a\nFAKE LOG LINE').catch((e: unknown) => e);
    expect((control as Error).message).not.toContain('\n');
  });

  it('leaves a canary outside the root unread and unchanged by a tool that obeys it', async () => {
    const guard = new PathGuard(root);
    const hostile = [...refusedBoth.map(([p]) => p), ...refusedWriteOnly.map(([p]) => p)];
    const readBack: string[] = [];
    for (const requested of hostile) {
      try {
        const p = await guard.resolveForRead(requested);
        const st = await stat(p).catch(() => undefined);
        if (st?.isFile()) readBack.push(await readFile(p, 'utf8'));
      } catch (err) {
        if (!(err instanceof PathRefusedError)) throw err;
      }
      try {
        const p = await guard.resolveForWrite(requested);
        await mkdir(path.dirname(p), { recursive: true });
        await writeFile(p, 'overwritten by a hostile path');
      } catch (err) {
        if (!(err instanceof PathRefusedError)) throw err;
      }
    }
    expect(readBack.some((text) => text.includes('canary'))).toBe(false);
    expect(await readFile(canaryPath, 'utf8')).toBe(CANARY);
    expect((await stat(canaryPath)).mtimeMs).toBe(canaryMtime);
    expect(await readFile(path.join(root, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(await readFile(path.join(root, '.env'), 'utf8')).toBe('SECRET=1');
  });
});
