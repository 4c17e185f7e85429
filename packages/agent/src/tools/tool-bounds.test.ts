import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PathGuard } from '@pullwright/security';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolContext } from './define-tool.ts';
import { FILE_SIZE_LIMITS } from './file-size-limits.ts';
import { ALL_TOOLS } from './index.ts';

const tool = (name: string) => ALL_TOOLS.find((t) => t.name === name)!;
const KB = 1024;

async function worktree(): Promise<{ root: string; ctx: ToolContext }> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'pw-bounds-'));
  execFileSync('git', ['init', '-q'], { cwd: root });
  await mkdir(path.join(root, 'src'));
  const ctx: ToolContext = {
    root,
    guard: new PathGuard(root),
    checks: { names: () => [], run: () => Promise.reject(new Error('no checks')) },
  };
  return { root, ctx };
}

/**
 * Every tool input the model controls is bounded in the work it causes (issue 25): a
 * backtracking pattern, a huge file, a huge write or a pathological edit answers with an
 * error the model can read, and never holds the worker's event loop.
 */
describe('tool inputs the model controls are bounded', () => {
  let root: string;
  let ctx: ToolContext;
  beforeEach(async () => {
    ({ root, ctx } = await worktree());
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('a catastrophic pattern answers at once (RE2, linear time), while a second operation on another worktree proceeds', async () => {
    // `^(a+)+$` against "aaa…a!" makes a backtracking engine try 2^n splits: JavaScript's
    // RegExp took over 120 s for 30 characters. Thousands of such lines, 29..60 characters long.
    const lines = Array.from({ length: 20_000 }, (_, i) => `${'a'.repeat(29 + (i % 32))}!`);
    await writeFile(path.join(root, 'src/hostile.txt'), `${lines.join('\n')}\n`);
    const other = await worktree();
    try {
      await writeFile(path.join(other.root, 'src/other.ts'), 'export const other = 1;\n');
      const order: string[] = [];
      const search = tool('search')
        .execute({ pattern: '^(a+)+$' }, ctx)
        .then((r) => {
          order.push('search');
          return r;
        });
      // Another job's operation, started once the search is under way: it completes before the
      // search's 20,000 lines are done, because the search yields the event loop as it goes.
      await new Promise((resolve) => setImmediate(resolve));
      const read = tool('read_file')
        .execute({ path: 'src/other.ts' }, other.ctx)
        .then((r) => {
          order.push('read');
          return r;
        });
      const [found, readBack] = await Promise.all([search, read]);
      expect(found).toEqual({ content: 'No matches for /^(a+)+$/ in 1 files.', isError: false });
      expect(readBack.content).toBe('1| export const other = 1;\n2| ');
      expect(order).toEqual(['read', 'search']);
      // The same pattern on the V8 engine would still be running on the first line.
      expect((await tool('search').execute({ pattern: '^(a+)+!$' }, ctx)).content).toMatch(/^src\/hostile\.txt:1: a+!/);
    } finally {
      await rm(other.root, { recursive: true, force: true });
    }
  });

  it.each([
    ['(a)\\1', /not supported: .*invalid escape sequence/],
    ['foo(?=bar)', /not supported: .*Perl syntax/],
    ['(?<!x)y', /not supported/],
  ])('a pattern RE2 cannot run in linear time (%s) is refused with a reason', async (pattern, reason) => {
    await writeFile(path.join(root, 'src/a.ts'), 'foobar\n');
    const r = await tool('search').execute({ pattern }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(reason);
    expect(r.content).toMatch(/RE2 syntax/);
  });

  it('a search past its 10 s budget stops and tells the model to narrow it', async () => {
    await writeFile(path.join(root, 'src/a.ts'), 'x\n');
    await writeFile(path.join(root, 'src/b.ts'), 'x\n');
    // The clock reads 0 when the search starts and 10.001 s on every later look.
    let reads = 0;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => (reads++ === 0 ? 0 : 10_001));
    try {
      const r = await tool('search').execute({ pattern: 'x' }, ctx);
      expect(r.isError).toBe(true);
      expect(r.content).toMatch(
        /^search stopped after 10 s, having scanned 0 of 2 files .*Narrow it with path or glob/,
      );
    } finally {
      now.mockRestore();
    }
  });

  it('a glob with many stars cannot backtrack either', async () => {
    await writeFile(path.join(root, 'src', `${'a'.repeat(200)}.ts`), 'x\n');
    const r = await tool('search').execute({ pattern: 'x', glob: `${'*a'.repeat(40)}*b` }, ctx);
    expect(r).toEqual({ content: 'No matches for /x/ in 0 files.', isError: false });
  });

  it('read_file reads up to 1 MB and refuses more with the size and what to do', async () => {
    await writeFile(path.join(root, 'src/ok.txt'), 'x'.repeat(FILE_SIZE_LIMITS.readBytes - 1));
    expect((await tool('read_file').execute({ path: 'src/ok.txt' }, ctx)).isError).toBe(false);
    await writeFile(path.join(root, 'src/big.txt'), 'x'.repeat(FILE_SIZE_LIMITS.readBytes + 1));
    const r = await tool('read_file').execute({ path: 'src/big.txt' }, ctx);
    expect(r).toEqual({
      content: `src/big.txt is ${FILE_SIZE_LIMITS.readBytes + 1} bytes, over the 1 MB read_file reads. Use search to find the part you need.`,
      isError: true,
    });
  });

  it('write_file writes up to 500 KB; more (counted in UTF-8 bytes) is refused and nothing is written', async () => {
    const ok = await tool('write_file').execute({ path: 'src/ok.txt', content: 'x'.repeat(500 * KB) }, ctx);
    expect(ok.isError).toBe(false);
    // 200,000 characters, 600,000 bytes: under a character count, over the byte limit.
    const r = await tool('write_file').execute({ path: 'src/wide.txt', content: '€'.repeat(200_000) }, ctx);
    expect(r).toEqual({
      content:
        'content is 600000 bytes, over the 500 KB one write may be (nothing was written). Split the file, or generate large data in a check.',
      isError: true,
    });
    await expect(stat(path.join(root, 'src/wide.txt'))).rejects.toThrow(/ENOENT/);
    const tooLong = await tool('write_file').execute({ path: 'src/long.txt', content: 'x'.repeat(500 * KB + 1) }, ctx);
    expect(tooLong.isError).toBe(true);
  });

  it('edit_file refuses a file over 500 KB before reading it, and an edit whose result would be', async () => {
    // A check wrote this: 200 MB blocked a worker for 12.8 s before the limit.
    await writeFile(path.join(root, 'src/huge.txt'), Buffer.alloc(64 * 1024 * 1024, 'a'));
    const r = await tool('edit_file').execute({ path: 'src/huge.txt', mode: 'append', newText: 'b' }, ctx);
    expect(r).toEqual({
      content: `src/huge.txt is ${64 * 1024 * 1024} bytes; edit_file changes files of up to 500 KB (nothing was written). Generated or data files are not edited by hand.`,
      isError: true,
    });
    await writeFile(path.join(root, 'src/near.txt'), 'x'.repeat(400 * KB));
    const grow = await tool('edit_file').execute(
      { path: 'src/near.txt', mode: 'append', newText: 'y'.repeat(200 * KB) },
      ctx,
    );
    expect(grow).toEqual({
      content: `the edit would make src/near.txt ${600 * KB} bytes, over the 500 KB a file tool writes (nothing was written).`,
      isError: true,
    });
    expect((await readFile(path.join(root, 'src/near.txt'), 'utf8')).length).toBe(400 * KB);
  });

  it('edit_file on a pathological file and oldText still answers with the closest lines', async () => {
    // 250,000 one-character lines and a 20-line oldText of long lines: comparing every window
    // line by line was billions of steps; the anchor line keeps it linear.
    await writeFile(path.join(root, 'src/lines.txt'), 'a\n'.repeat(240_000));
    const oldText = Array.from({ length: 20 }, (_, i) => `${'ab'.repeat(5000)}${i}`).join('\n');
    const r = await tool('edit_file').execute({ path: 'src/lines.txt', oldText, newText: 'x' }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/^oldText was not found in src\/lines\.txt\. Did you mean these lines\?\n\s*\d+\| a\n/);
    // Repeats of oldText are counted up to a bound, not all 240,000.
    const many = await tool('edit_file').execute({ path: 'src/lines.txt', oldText: 'a\n', newText: 'x' }, ctx);
    expect(many.content).toMatch(/^oldText appears 20 or more times in src\/lines\.txt \(lines 1, 2, 3,/);
  });

  it('list_dir reads a bounded number of entries from a directory a check filled', async () => {
    const dir = path.join(root, 'src', 'many');
    await mkdir(dir);
    execFileSync('sh', ['-c', 'seq 2050 | sed s/^/f/ | xargs touch'], { cwd: dir });
    const r = await tool('list_dir').execute({ path: 'src/many' }, ctx);
    expect(r.isError).toBe(false);
    expect(r.content.split('\n')).toHaveLength(501);
    expect(r.content).toMatch(/… and more than 1500 more entries$/);
  });
});
