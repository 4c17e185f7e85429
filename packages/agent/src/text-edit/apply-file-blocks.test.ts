import * as nodeFs from 'node:fs/promises';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PathGuard } from '@pullwright/security';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyFileBlocks, FileBlocksRejectedError, FileBlocksWriteError, type FileIo } from './apply-file-blocks.ts';
import { parseFileBlocks } from './parse-file-blocks.ts';

let root: string;
let outside: string;

beforeEach(async () => {
  const base = await mkdtemp(path.join(os.tmpdir(), 'pw-text-edit-'));
  root = path.join(base, 'repo');
  outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, 'src/keep.ts'), 'export const keep = 1;\n');
  await writeFile(path.join(root, 'src/old.ts'), 'old\n');
  await writeFile(path.join(root, '.gitignore'), 'node_modules\n');
});

afterEach(async () => {
  await rm(path.dirname(root), { recursive: true, force: true });
});

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const rel of await readdir(dir, { recursive: true })) {
    const abs = path.join(dir, rel);
    if ((await lstat(abs)).isFile()) out[rel] = await readFile(abs, 'utf8');
  }
  return out;
}

function blocks(response: string) {
  const parsed = parseFileBlocks(response);
  expect(parsed.problems).toEqual([]);
  return parsed.blocks;
}

async function rejection(response: string): Promise<FileBlocksRejectedError> {
  const err = await applyFileBlocks(root, blocks(response), new PathGuard(root)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FileBlocksRejectedError);
  return err as FileBlocksRejectedError;
}

describe('applyFileBlocks', () => {
  it('creates, updates and deletes, creating parent directories', async () => {
    const applied = await applyFileBlocks(
      root,
      blocks(
        '^^^src/keep.ts\nexport const keep = 2;\n^^^end\n^^^src/new/deep/file.ts\nnew\n^^^end\n^^^src/old.ts\n^^^delete\n^^^empty.txt\n^^^end',
      ),
      new PathGuard(root),
    );
    expect(applied).toEqual([
      { path: 'src/keep.ts', action: 'updated' },
      { path: 'src/new/deep/file.ts', action: 'created' },
      { path: 'src/old.ts', action: 'deleted' },
      { path: 'empty.txt', action: 'created' },
    ]);
    expect(await snapshot(root)).toEqual({
      '.gitignore': 'node_modules\n',
      'src/keep.ts': 'export const keep = 2;\n',
      'src/new/deep/file.ts': 'new\n',
      'empty.txt': '',
    });
  });

  it('refuses a block over 500 KB and writes nothing (README: file blocks write at most 500 KB)', async () => {
    const big = `${'x'.repeat(500 * 1024)}\n`;
    const before = await snapshot(root);
    const err = await rejection(`^^^src/keep.ts\n${big}^^^end\n^^^src/small.ts\nok\n^^^end`);
    expect(err.message).toMatch(/file blocks change files of up to 500 KB/);
    expect(await snapshot(root)).toEqual(before);
  });

  it('keeps CRLF in a file that uses it', async () => {
    await writeFile(path.join(root, 'win.txt'), 'a\r\nb\r\n');
    await applyFileBlocks(root, blocks('^^^win.txt\na\nc\n^^^end'), new PathGuard(root));
    expect(await readFile(path.join(root, 'win.txt'), 'utf8')).toBe('a\r\nc\r\n');
  });

  it.each([
    { name: 'a protected file', block: '^^^.gitignore\n*\n^^^end', rule: /path refused \(protected\)/ },
    { name: 'path traversal', block: '^^^../outside/pwned.txt\nx\n^^^end', rule: /path refused \(traversal\)/ },
    { name: 'an absolute path', block: '^^^/etc/pw-abs.txt\nx\n^^^end', rule: /path refused \(absolute\)/ },
    { name: 'the .git folder', block: '^^^.git/hooks/pre-commit\nx\n^^^end', rule: /path refused \(git_internal\)/ },
    { name: 'a secret file', block: '^^^.env\nKEY=1\n^^^end', rule: /path refused \(secret_file\)/ },
    {
      name: 'a symlink out of the tree',
      block: '^^^link/escape.txt\nx\n^^^end',
      rule: /path refused \(symlink_escape\)/,
    },
  ])('refuses $name and writes nothing at all', async ({ block, rule }) => {
    await symlink(outside, path.join(root, 'link'));
    const before = await snapshot(root);
    // Valid blocks before and after the refused one must not be written either.
    const err = await rejection(
      `^^^src/keep.ts\nchanged\n^^^end\n${block}\n^^^src/fresh.ts\nfresh\n^^^end\n^^^src/old.ts\n^^^delete`,
    );
    expect(err.code).toBe('path_refused');
    expect(err.message).toMatch(rule);
    expect(err.message).toMatch(/^file blocks rejected, nothing written/);
    expect(await snapshot(root)).toEqual(before);
    expect(await readdir(outside)).toEqual([]);
  });

  it.each([
    {
      name: 'deleting a file that does not exist',
      response: '^^^src/ghost.ts\n^^^delete',
      message: /nothing to delete/,
    },
    // The hardened PathGuard refuses a directory as a write target itself (rule special_file).
    {
      name: 'writing over a directory',
      response: '^^^src\nx\n^^^end',
      message: /special_file|is a directory/,
      code: 'path_refused',
    },
    {
      name: 'a file named twice',
      response: '^^^src/a.ts\n1\n^^^end\n^^^./src/a.ts\n2\n^^^end',
      message: /line 7 \.\/src\/a.ts: also changed by the block at line 4/,
    },
    {
      name: 'writing under a file',
      response: '^^^src/keep.ts/inner.ts\nx\n^^^end',
      message: /src\/keep.ts is a file, not a directory/,
    },
    {
      name: 'a file and a path inside it in one response',
      response: '^^^lib\nx\n^^^end\n^^^lib/a.ts\ny\n^^^end',
      message: /line 4 lib: written as a file, but the block at line 7 puts lib\/a.ts inside it/,
    },
  ] as { name: string; response: string; message: RegExp; code?: string }[])(
    'rejects $name before writing anything',
    async ({ response, message, code }) => {
      const before = await snapshot(root);
      const err = await rejection(`^^^src/keep.ts\nchanged\n^^^end\n${response}`);
      expect(err.code).toBe(code ?? 'validation_failed');
      expect(err.message).toMatch(message);
      expect(await snapshot(root)).toEqual(before);
    },
  );

  it('lists every problem at once', async () => {
    const err = await rejection('^^^.gitignore\n*\n^^^end\n^^^src/ghost.ts\n^^^delete\n^^^../x\nx\n^^^end');
    expect(err.context.problems.map((p) => p.line)).toEqual([1, 4, 6]);
  });

  it('rolls back every change when the disk fails midway', async () => {
    const before = await snapshot(root);
    const failing: FileIo = {
      ...nodeFs,
      writeFile: ((file: Parameters<typeof nodeFs.writeFile>[0], data: string, ...rest: unknown[]) => {
        if (String(file).endsWith('third.ts')) return Promise.reject(new Error('ENOSPC: no space left on device'));
        return (nodeFs.writeFile as (...a: unknown[]) => Promise<void>)(file, data, ...rest);
      }) as FileIo['writeFile'],
    };
    const response =
      '^^^src/keep.ts\nchanged\n^^^end\n^^^src/old.ts\n^^^delete\n^^^src/made/new.ts\nnew\n^^^end\n^^^src/third.ts\nx\n^^^end';
    const err = await applyFileBlocks(root, blocks(response), new PathGuard(root), failing).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FileBlocksWriteError);
    expect((err as FileBlocksWriteError).context.path).toBe('src/third.ts');
    expect(await snapshot(root)).toEqual(before);
    await expect(readdir(path.join(root, 'src/made'))).rejects.toThrow(/ENOENT/);
  });
});
