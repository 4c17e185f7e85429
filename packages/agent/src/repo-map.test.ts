import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PathGuard } from '@pullwright/security';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildRepoMap, estimateTokens, extractSymbols, worktreeFiles } from './repo-map.ts';

describe('repo map', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'pw-map-'));
    execFileSync('git', ['init', '-q'], { cwd: root });
  });
  afterEach(async () => rm(root, { recursive: true, force: true }));

  it.each([
    [
      'a.ts',
      'export declare class Decl {}\nexport async function load() {}\nexport class Store {}\nconst hidden = 1;\nexport type Id = string;\nfunction helper() {}',
      ['Decl', 'load', 'Store', 'Id', 'helper'],
    ],
    ['a.py', 'def main():\n    pass\nclass Parser:\n    def inner(self): pass\n', ['main', 'Parser']],
    ['a.go', 'func (s *Server) Start() {}\nfunc main() {}\ntype Config struct{}', ['Start', 'main', 'Config']],
    ['a.rs', 'pub fn parse() {}\nfn private() {}\npub struct Token;', ['parse', 'Token']],
    ['a.md', '# Title', []],
  ])('extracts top-level symbols from %s', (file, text, expected) => {
    expect(extractSymbols(file, text).sort()).toEqual([...expected].sort());
  });

  it('lists files with symbols, skips ignored files, and fits the budget', async () => {
    await mkdir(path.join(root, 'src/deep/er'), { recursive: true });
    await writeFile(path.join(root, '.gitignore'), 'dist/\n');
    await mkdir(path.join(root, 'dist'));
    await writeFile(path.join(root, 'dist/out.js'), 'export function built() {}');
    await writeFile(path.join(root, 'src/slugify.js'), 'export function slugify() {}');
    for (let i = 0; i < 60; i++) {
      await writeFile(
        path.join(root, `src/deep/er/m${i}.ts`),
        `export function fn${i}a() {}\nexport function fn${i}b() {}\n`,
      );
    }
    const full = await buildRepoMap(worktreeFiles(new PathGuard(root)), 100_000);
    expect(full).toContain('src/\n  slugify.js: slugify');
    expect(full).toContain('  m1.ts: fn1a, fn1b');
    expect(full).not.toContain('dist');

    const small = await buildRepoMap(worktreeFiles(new PathGuard(root)), 60);
    expect(estimateTokens(small)).toBeLessThanOrEqual(60);
    expect(small).toContain('src/deep/er/ (60 files)');
    expect(small).toContain('slugify.js');
  });
});
