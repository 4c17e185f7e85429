import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeDiff, assessRisk } from './assess-risk.ts';

const BASE: Record<string, string> = {
  'README.md': '# Demo\n\nA demo.\n',
  'package.json': `${JSON.stringify(
    { name: 'demo', version: '1.0.0', scripts: { test: 'node --test' }, dependencies: { 'left-pad': '^1.0.0' } },
    null,
    2,
  )}\n`,
  'src/slugify.js': "export function slugify(s) {\n  return s.toLowerCase();\n}\n\nexport const SEP = '-';\n",
  'src/app.py': 'def handler(event):\n    return event\n\n\ndef _private():\n    pass\n',
  'src/server.go': 'package main\n\nfunc Serve(addr string) error {\n\treturn nil\n}\n',
  'test/slugify.test.js': "import { slugify } from '../src/slugify.js';\n",
  '.github/workflows/ci.yml': 'on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n',
  'src/auth/session.js': 'export const TTL = 3600;\n',
};

let repo: string;
function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
}
function write(files: Record<string, string | null>) {
  for (const [f, content] of Object.entries(files)) {
    const abs = path.join(repo, f);
    if (content === null) unlinkSync(abs);
    else {
      mkdirSync(path.dirname(abs), { recursive: true });
      writeFileSync(abs, content);
    }
  }
}
/** The diff git itself produces for the change, against the base commit, like the pipeline's gate. */
function diffOf(files: Record<string, string | null>): string {
  git('checkout', '-q', '--detach', 'base');
  git('reset', '-q', '--hard', 'base');
  write(files);
  git('add', '--all');
  return git('diff', '--cached', 'base');
}

beforeAll(() => {
  repo = mkdtempSync(path.join(os.tmpdir(), 'pw-risk-'));
  git('init', '-q', '--initial-branch=main');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 't');
  write(BASE);
  git('add', '--all');
  git('commit', '-q', '-m', 'base');
  git('tag', 'base');
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const pkg = (deps: Record<string, string>, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ name: 'demo', version: '1.0.0', scripts: { test: 'node --test' }, dependencies: deps, ...extra }, null, 2)}\n`;

describe('assessRisk on real git diffs', () => {
  it.each([
    {
      name: 'docs only',
      change: { 'README.md': '# Demo\n\nA demo of slugify.\n', 'docs/usage.md': 'Call slugify.\n' },
      level: 'low',
      reasons: ['only docs changed'],
      kinds: { docs: 2 },
    },
    {
      name: 'test only',
      change: { 'test/slugify.test.js': "import { slugify } from '../src/slugify.js';\nslugify('a b');\n" },
      level: 'low',
      reasons: ['only tests changed'],
      kinds: { tests: 1 },
    },
    {
      name: 'dependency bump',
      change: { 'package.json': pkg({ 'left-pad': '^1.3.0' }) },
      level: 'medium',
      reasons: ['dependencies changed in package.json: left-pad ^1.0.0 → ^1.3.0'],
      kinds: { dependencies: 1 },
    },
    {
      name: 'new dependency with a lock file',
      change: { 'package.json': pkg({ 'left-pad': '^1.0.0', express: '^5.0.0' }), 'package-lock.json': '{}\n' },
      level: 'medium',
      reasons: ['dependencies changed in package-lock.json', 'dependencies changed in package.json: express (new)'],
      kinds: { dependencies: 2 },
    },
    {
      name: 'package.json scripts only (not a dependency change)',
      change: {
        'package.json': pkg({ 'left-pad': '^1.0.0' }, { scripts: { test: 'node --test', lint: 'biome check' } }),
      },
      level: 'medium',
      reasons: ['source files changed: package.json'],
      kinds: { source: 1 },
    },
    {
      name: 'migration',
      change: { 'migrations/0002_add_email.sql': 'ALTER TABLE users ADD COLUMN email text;\n' },
      level: 'high',
      reasons: ['schema or migration changes: migrations/0002_add_email.sql'],
      kinds: { migrations: 1 },
    },
    {
      name: 'workflow edit',
      change: { '.github/workflows/ci.yml': 'on: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n' },
      level: 'high',
      reasons: ['CI/workflow files changed: .github/workflows/ci.yml'],
      kinds: { ci: 1 },
    },
    {
      name: 'auth code',
      change: { 'src/auth/session.js': 'export const TTL = 60;\n' },
      level: 'high',
      reasons: ['security-sensitive files changed: src/auth/session.js'],
      kinds: { security: 1 },
    },
    {
      name: 'source with a new export',
      change: { 'src/slugify.js': `${BASE['src/slugify.js']}export function unslug(s) {\n  return s;\n}\n` },
      level: 'medium',
      reasons: ['public API added in src/slugify.js: unslug', 'source files changed: src/slugify.js'],
      kinds: { source: 1 },
    },
    {
      name: 'removed JS export',
      change: { 'src/slugify.js': 'export function slugify(s) {\n  return s.toLowerCase();\n}\n' },
      level: 'high',
      reasons: ['public API removed in src/slugify.js: SEP', 'source files changed: src/slugify.js'],
      kinds: { source: 1 },
    },
    {
      name: 'changed Go signature and removed Python function',
      change: {
        'src/server.go': 'package main\n\nfunc Serve(addr string, tls bool) error {\n\treturn nil\n}\n',
        'src/app.py': 'def _private():\n    pass\n',
      },
      level: 'high',
      reasons: [
        'public API removed in src/app.py: handler',
        'public API changed in src/server.go: Serve',
        'source files changed: src/app.py, src/server.go',
      ],
      kinds: { source: 2 },
    },
    {
      name: 'body-only source edit (no API change)',
      change: {
        'src/slugify.js':
          "export function slugify(s) {\n  return s.trim().toLowerCase();\n}\n\nexport const SEP = '-';\n",
      },
      level: 'medium',
      reasons: ['source files changed: src/slugify.js'],
      kinds: { source: 1 },
    },
    {
      name: 'a new value for an exported constant (no API change)',
      change: {
        'src/slugify.js': "export function slugify(s) {\n  return s.toLowerCase();\n}\n\nexport const SEP = '_';\n",
      },
      level: 'medium',
      reasons: ['source files changed: src/slugify.js'],
      kinds: { source: 1 },
    },
    {
      name: 'renaming a workflow out of .github',
      change: { '.github/workflows/ci.yml': null, 'ci-old.yml': BASE['.github/workflows/ci.yml']! },
      level: 'high',
      reasons: ['CI/workflow files changed: ci-old.yml'],
      kinds: { ci: 1 },
    },
  ])('$name → $level', ({ change, level, reasons, kinds }) => {
    const risk = assessRisk(diffOf(change));
    expect(risk.level).toBe(level);
    expect(risk.reasons).toEqual(reasons);
    expect(risk.stats.kinds).toEqual(kinds);
  });

  it('a secret finding makes any change high risk', () => {
    const risk = assessRisk(diffOf({ 'README.md': '# Demo\n\ntoken: x\n' }), { secretFindings: 1 });
    expect(risk.level).toBe('high');
    expect(risk.reasons[0]).toBe('secret scan: 1 finding(s) in the diff');
  });

  it('a large change is high risk even in tests', () => {
    const big = Array.from({ length: 600 }, (_, i) => `test('${i}', () => {});`).join('\n');
    const risk = assessRisk(diffOf({ 'test/big.test.js': `${big}\n` }));
    expect(risk.level).toBe('high');
    expect(risk.reasons).toEqual(['large change: 1 files, 600 lines']);
  });

  it('counts lines and files the way git does', () => {
    const diff = diffOf({ 'README.md': '# Demo\n', 'docs/a.md': 'a\nb\n' });
    const a = analyzeDiff(diff);
    const numstat = git('diff', '--cached', '--numstat', 'base')
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(a.additions).toBe(numstat.reduce((n, [add]) => n + Number(add), 0));
    expect(a.deletions).toBe(numstat.reduce((n, [, del]) => n + Number(del), 0));
    expect(a.files.map((f) => [f.path, f.status])).toEqual([
      ['README.md', 'modified'],
      ['docs/a.md', 'added'],
    ]);
  });

  it('a removed line that reads like a diff header is still a removed line', () => {
    const diff = diffOf({ 'docs/x.md': '--- a\n+++ b\n' });
    const second = diffOf({ 'docs/x.md': '+++ b\n' });
    expect(analyzeDiff(diff).files).toHaveLength(1);
    expect(analyzeDiff(second).files).toHaveLength(1);
  });
});
