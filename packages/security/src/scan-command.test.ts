import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScanCommand } from './scan-command.ts';

const token = `ghp_${'Zq8xW2Lk9v'.repeat(3)}Ab3dEf`;
let dir: string;

function collect(stream: PassThrough): () => string {
  let text = '';
  stream.on('data', (c: Buffer) => {
    text += c.toString();
  });
  return () => text;
}

async function run(argv: string[], opts: { stdin?: string; tty?: boolean } = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  stdin.end(opts.stdin ?? '');
  const code = await runScanCommand(argv, { stdin, stdout, stderr, stdinIsTTY: opts.tty ?? false });
  return { code, stdout: out(), stderr: err() };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pw-scancmd-'));
  await mkdir(path.join(dir, 'clean/src'), { recursive: true });
  await writeFile(path.join(dir, 'clean/src/a.ts'), 'export const a = 1;\n');
  await mkdir(path.join(dir, 'dirty/src'), { recursive: true });
  await mkdir(path.join(dir, 'dirty/node_modules/pkg'), { recursive: true });
  await mkdir(path.join(dir, 'dirty/.git'), { recursive: true });
  await writeFile(path.join(dir, 'dirty/src/ok.ts'), 'export const ok = true;\n');
  await writeFile(path.join(dir, 'dirty/src/leak.ts'), `// setup\nconst t = "${token}";\n`);
  await writeFile(path.join(dir, 'dirty/node_modules/pkg/index.js'), `const t = "${token}";\n`);
  await writeFile(path.join(dir, 'dirty/.git/config'), `url = https://x:${token}@github.com\n`);
  await writeFile(path.join(dir, 'dirty/blob.bin'), Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(token)]));
  await symlink('../clean', path.join(dir, 'dirty/link-to-clean'));
  await writeFile(
    path.join(dir, 'team.toml'),
    "[extend]\nuseDefault = true\n[[rules]]\nid = \"acme\"\nregex = '''ACME-[0-9]{8}'''\nkeywords = [\"acme-\"]\n",
  );
  await writeFile(path.join(dir, 'broken.toml'), '[[rules]]\nid = "x"\n');
  await writeFile(path.join(dir, 'acme.txt'), 'id ACME-12345678\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runScanCommand', () => {
  it('exits 0 on a clean tree', async () => {
    const r = await run([path.join(dir, 'clean')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no secrets in 1 file');
  });

  it('exits 1 and names file, line and rule, reading binaries by their strings, skipping .git, node_modules and symlinks', async () => {
    const r = await run([path.join(dir, 'dirty')]);
    expect(r.code).toBe(1);
    const file = (name: string) => path.join(dir, 'dirty', name).split(path.sep).join('/');
    expect(r.stdout).toBe(
      `${file('blob.bin')}:1: github-pat (ghp_…) [strings]\n${file('src/leak.ts')}:2: github-pat (ghp_…)\n`,
    );
    expect(r.stdout + r.stderr).not.toContain(token);
    expect(r.stderr).toContain('2 secrets found in 3 files');
  });

  it('refuses a secret file named on the command line, not one found by walking', async () => {
    const env = path.join(dir, 'envdir', '.env');
    await mkdir(path.dirname(env), { recursive: true });
    await writeFile(env, 'DEBUG=1\n');
    const named = await run([env]);
    expect(named.code).toBe(1);
    expect(named.stdout).toBe(`${env.split(path.sep).join('/')}:0: secret-file\n`);
    expect((await run([path.dirname(env)])).code).toBe(0);
  });

  it('decodes an encoded token and joins a split one', async () => {
    const encoded = Buffer.from(`token=${token}`).toString('base64');
    const diff = `diff --git a/x.ts b/x.ts\n--- a/x.ts\n+++ b/x.ts\n@@ -9,0 +10,3 @@\n+const a = "${encoded}";\n+const b = "${token.slice(0, 20)}" +\n+  "${token.slice(20)}";\n`;
    const r = await run([], { stdin: diff });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('x.ts:10: github-pat (ghp_…) [base64]\nx.ts:11: github-pat (ghp_…) [joined]\n');
  });

  it('refuses a diff that adds a .env file', async () => {
    const r = await run([], {
      stdin: 'diff --git a/.env b/.env\n--- /dev/null\n+++ b/.env\n@@ -0,0 +1 @@\n+DEBUG=1\n',
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('.env:0: secret-file\n');
  });

  it('prints JSON with --json', async () => {
    const r = await run(['--json', path.join(dir, 'dirty/src')]);
    expect(r.code).toBe(1);
    const body = JSON.parse(r.stdout) as { findings: Array<Record<string, unknown>>; files: number };
    expect(body.files).toBe(2);
    expect(body.findings).toEqual([
      {
        ruleId: 'github-pat',
        line: 2,
        preview: 'ghp_…',
        file: path.join(dir, 'dirty/src/leak.ts').split(path.sep).join('/'),
      },
    ]);
  });

  it('scans a diff on stdin when no paths are given', async () => {
    const diff = `diff --git a/x.ts b/x.ts\n--- a/x.ts\n+++ b/x.ts\n@@ -3,0 +4,1 @@\n+const t = "${token}";\n`;
    const r = await run([], { stdin: diff });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('x.ts:4: github-pat (ghp_…)\n');
    const clean = await run([], { stdin: '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n' });
    expect(clean.code).toBe(0);
  });

  it('exits 2 when the diff cannot be parsed, so a hook blocks the commit', async () => {
    const r = await run([], { stdin: '--- a/x\n+++ b/x\n@@ -1,2 +1,9 @@\n+only one line\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unified diff: hunk ends early');
  });

  it('uses a gitleaks config given with --config', async () => {
    const r = await run([
      '--config',
      path.join(dir, 'team.toml'),
      path.join(dir, 'acme.txt'),
      path.join(dir, 'dirty/src'),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('acme.txt:1: acme (ACM…)');
    expect(r.stdout).toContain(': github-pat (ghp_…)');
  });

  it.each<[string, string[], { tty?: boolean }, RegExp]>([
    ['an unknown option', ['--nope'], {}, /unknown option --nope/],
    ['--config without a file', ['--config'], {}, /--config needs a file/],
    ['no paths and a terminal on stdin', [], { tty: true }, /give paths to scan/],
    ['a missing path', ['/definitely/not/here'], {}, /ENOENT/],
    ['an invalid config', ['--config=BROKEN', '.'], {}, /needs a regex or a path/],
  ])('exits 2 on %s', async (_name, argv, opts, message) => {
    const args = argv.map((a) => (a === '--config=BROKEN' ? `--config=${path.join(dir, 'broken.toml')}` : a));
    const r = await run(args, opts);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('prints usage with --help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: pullwright scan');
  });
});
