import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { interdiff } from './interdiff.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-interdiff-'));
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();
const commit = (file: string, text: string, message: string) => {
  writeFileSync(path.join(dir, file), text);
  git('add', file);
  git('commit', '-q', '-m', message);
  return git('rev-parse', 'HEAD');
};

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('interdiff', () => {
  git('init', '-q', '--initial-branch=main');
  commit('a.txt', 'one\n', 'base');
  git('checkout', '-q', '-b', 'agent/x');
  const approved = commit('a.txt', 'one\ntwo\n', 'first change');
  git('checkout', '-q', 'main');
  commit('base.txt', 'from the base\n', 'base moves on');
  git('checkout', '-q', 'agent/x');
  git('-c', 'core.editor=true', 'merge', '-q', '--no-edit', 'main');
  const head = commit('a.txt', 'one\ntwo\nthree\n', 'second change');

  it('shows only the change since `from`, not the base merged in between', async () => {
    const d = await interdiff(dir, approved, head, 'main');
    expect(d.baseFactoredOut).toBe(true);
    expect(d.diff).toContain('+three');
    expect(d.diff).not.toContain('base.txt');
    expect(d.diff).not.toContain('+two');
    // The plain diff would have shown the base's file: the test is about the difference.
    expect(git('diff', approved, head)).toContain('base.txt');
  });

  it('is empty between a head and itself', async () => {
    expect((await interdiff(dir, head, head, 'main')).diff).toBe('');
  });

  it('names an unknown sha as not found', async () => {
    await expect(interdiff(dir, 'f'.repeat(40), head, 'main')).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('from'),
    });
  });
});
