import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SecretScanner, scanPublishableChange } from '@pullwright/security';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listPushContent } from './push-content.ts';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();
}

/** Credential-shaped strings are built here from parts, so no literal one sits in the repository. */
let counter = 0;
function stripeKey(): string {
  counter++;
  const body = Array.from(
    { length: 24 },
    (_, i) => 'aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z'[(i * 7 + counter * 13) % 31],
  ).join('');
  return ['sk', 'live', body].join('_');
}

describe('listPushContent', () => {
  let dir: string;
  let base: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pw-push-'));
    git(dir, 'init', '-q', '--initial-branch=main');
    await writeFile(path.join(dir, 'README.md'), '# app\n');
    await writeFile(path.join(dir, 'old.txt'), 'unchanged\n');
    git(dir, 'add', '.');
    git(dir, 'commit', '-qm', 'base');
    base = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'checkout', '-qb', 'agent/op-1');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  const commitAll = (message: string): string => {
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', message);
    return git(dir, 'rev-parse', 'HEAD');
  };

  it('names every gitlink a new commit adds (a nested repository the publish gate refuses), not one the base has', async () => {
    git(dir, 'update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},vendor/lib`);
    git(dir, 'commit', '-qm', 'vendor a repository');
    const pushed = await listPushContent(dir, 'HEAD', [base]);
    expect(pushed.gitlinks).toEqual(['vendor/lib']);
    expect(pushed.files).toEqual([]);
    expect((await listPushContent(dir, 'HEAD', [git(dir, 'rev-parse', 'HEAD~0')])).gitlinks).toEqual([]);
  });

  it('lists new commits and the blobs their trees add, not what the base has', async () => {
    await writeFile(path.join(dir, 'a.txt'), 'one\n');
    const first = commitAll('add a');
    await writeFile(path.join(dir, 'a.txt'), 'two\n');
    await writeFile(path.join(dir, 'README.md'), '# app\nmore\n');
    const second = commitAll('change a\n\nwith a body');
    const pushed = await listPushContent(dir, 'HEAD', [base]);
    expect(pushed.commits).toEqual([
      { sha: first, message: 'add a\n' },
      { sha: second, message: 'change a\n\nwith a body\n' },
    ]);
    expect(pushed.files.map((f) => [f.path, f.content.toString()]).sort()).toEqual([
      ['README.md', '# app\nmore\n'],
      ['a.txt', 'one\n'],
      ['a.txt', 'two\n'],
    ]);
    // A changed file comes with its content on the start commit (what a scan tells new secrets from).
    expect(pushed.files.map((f) => [f.path, f.before?.toString()]).sort()).toEqual([
      ['README.md', '# app\n'],
      ['a.txt', undefined],
      ['a.txt', undefined],
    ]);
    expect(await listPushContent(dir, 'HEAD', [second])).toEqual({ commits: [], files: [], gitlinks: [] });
  });

  it('lets the publish scan see what git diff text would not show', async () => {
    const keys = Array.from({ length: 6 }, stripeKey);
    // 1. A file git diff shows as "Binary files differ": .gitattributes marks it -diff.
    await writeFile(path.join(dir, '.gitattributes'), 'fixtures/* -diff\n');
    await mkdir(path.join(dir, 'fixtures'));
    await writeFile(path.join(dir, 'fixtures', 'data.txt'), `key = "${keys[0]}"\n`);
    // 2. A binary file a check wrote, with the key among its bytes.
    await writeFile(
      path.join(dir, 'out.bin'),
      Buffer.concat([Buffer.from([0, 1, 2, 3]), Buffer.from(keys[1]!), Buffer.from([0])]),
    );
    // 3. A key base64-encoded in a source file.
    await writeFile(
      path.join(dir, 'cfg.js'),
      `module.exports = "${Buffer.from(`stripe=${keys[2]}`).toString('base64')}";\n`,
    );
    // 4. A dotenv file, whatever is in it.
    await writeFile(path.join(dir, '.env'), 'DEBUG=1\n');
    // 5. A key in a file name.
    await writeFile(path.join(dir, `${keys[3]}.txt`), 'x\n');
    commitAll(`add fixtures\n\nkey ${keys[4]}`);
    // 6. A key added in one commit and removed in the next is still pushed (history).
    await writeFile(path.join(dir, 'tmp.js'), `const k = "${keys[5]}";\n`);
    commitAll('wip');
    await rm(path.join(dir, 'tmp.js'));
    commitAll('clean up');
    expect(git(dir, 'diff', base, 'HEAD', '--', 'fixtures')).toContain('Binary files');

    const pushed = await listPushContent(dir, 'HEAD', [base]);
    const findings = scanPublishableChange(new SecretScanner(), { branch: 'agent/op-1', ...pushed });
    const where = findings.map(
      (f) =>
        `${f.channel}:${f.channel === 'commit-message' ? 'commit' : f.where}:${f.ruleId}${f.via ? `:${f.via}` : ''}`,
    );
    expect(where.sort(), JSON.stringify(where)).toEqual(
      [
        'file:fixtures/data.txt:stripe-access-token',
        'file:out.bin:stripe-access-token:strings',
        'file:cfg.js:stripe-access-token:base64',
        'path:.env:secret-file',
        'path:[redacted].txt:stripe-access-token',
        'commit-message:commit:stripe-access-token',
        'file:tmp.js:stripe-access-token',
      ].sort(),
    );
    for (const key of keys) expect(JSON.stringify(findings)).not.toContain(key.slice(8));
  });

  it('fails on a revision that does not exist rather than reporting nothing', async () => {
    await expect(listPushContent(dir, 'no-such-branch', [base])).rejects.toThrow(/rev-list failed/);
  });
});
