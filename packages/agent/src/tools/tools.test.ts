import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PathGuard } from '@pullwright/security';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CheckRunner, ToolContext } from './define-tool.ts';
import { MAX_TOOL_OUTPUT_CHARS, truncateOutput } from './define-tool.ts';
import { ALL_TOOLS, READ_ONLY_TOOLS } from './index.ts';

const tool = (name: string) => ALL_TOOLS.find((t) => t.name === name)!;

const checks: CheckRunner = {
  names: () => ['test'],
  run: async (name) => ({
    name,
    command: 'npm test',
    passed: false,
    exitCode: 1,
    durationMs: 12,
    output: 'not ok 1 - adds',
    timedOut: false,
    failingTests: ['adds'],
  }),
};

describe('agent tools', () => {
  let root: string;
  let outside: string;
  let ctx: ToolContext;
  const writes: string[] = [];
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'pw-tools-'));
    outside = await mkdtemp(path.join(os.tmpdir(), 'pw-outside-'));
    await mkdir(path.join(root, 'src'));
    await writeFile(
      path.join(root, 'src/math.js'),
      'export function add(a, b) {\n  return a - b;\n}\n\nexport function sub(a, b) {\n  return a - b;\n}\n',
    );
    await writeFile(path.join(outside, 'canary.txt'), 'canary');
    writes.length = 0;
    ctx = { root, guard: new PathGuard(root), checks, onWrite: async (p) => void writes.push(p) };
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('every tool publishes a JSON schema for its input', () => {
    expect(ALL_TOOLS.map((t) => t.name)).toEqual([
      'list_dir',
      'read_file',
      'search',
      'edit_file',
      'write_file',
      'delete_file',
      'run_check',
    ]);
    for (const t of ALL_TOOLS) expect(t.spec.inputSchema).toMatchObject({ type: 'object' });
  });

  it('read_file numbers lines and honours ranges', async () => {
    const all = await tool('read_file').execute({ path: 'src/math.js' }, ctx);
    expect(all.content.split('\n')[1]).toBe('2|   return a - b;');
    const part = await tool('read_file').execute({ path: 'src/math.js', startLine: 5, endLine: 6 }, ctx);
    expect(part.content).toBe('5| export function sub(a, b) {\n6|   return a - b;\n(lines 5-6 of 8)');
  });

  it('edit_file replaces one exact unique match and reports the line', async () => {
    const r = await tool('edit_file').execute(
      {
        path: 'src/math.js',
        oldText: 'function add(a, b) {\n  return a - b;',
        newText: 'function add(a, b) {\n  return a + b;',
      },
      ctx,
    );
    expect(r).toEqual({ content: 'Edited src/math.js at line 1.', isError: false });
    expect(await readFile(path.join(root, 'src/math.js'), 'utf8')).toContain(
      'return a + b;\n}\n\nexport function sub(a, b) {\n  return a - b;',
    );
    expect(writes).toEqual(['src/math.js']);
  });

  it('edit_file refuses an ambiguous match and names the lines', async () => {
    const r = await tool('edit_file').execute({ path: 'src/math.js', oldText: 'return a - b;', newText: 'x' }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toBe(
      'oldText appears 2 times in src/math.js (lines 2, 6). Include more surrounding lines so it matches once.',
    );
  });

  it('edit_file shows the closest lines with numbers when the text is missing', async () => {
    const r = await tool('edit_file').execute(
      { path: 'src/math.js', oldText: 'export function sub(a,b) {\n  return a-b;', newText: 'x' },
      ctx,
    );
    expect(r.isError).toBe(true);
    expect(r.content).toContain('Did you mean these lines?');
    expect(r.content).toContain('5| export function sub(a, b) {');
    expect(r.content).toContain('6|   return a - b;');
    expect(writes).toEqual([]);
  });

  it('write_file creates directories; list_dir shows them and hides .git', async () => {
    await mkdir(path.join(root, '.git'));
    expect((await tool('write_file').execute({ path: 'test/math.test.js', content: 'a\nb' }, ctx)).content).toBe(
      'Created test/math.test.js (2 lines).',
    );
    expect((await tool('list_dir').execute({}, ctx)).content).toBe('src/\ntest/');
  });

  it('write_file create refuses an existing file with a message the model can act on, and writes nothing', async () => {
    const before = await readFile(path.join(root, 'src/math.js'), 'utf8');
    const r = await tool('write_file').execute({ path: 'src/math.js', content: 'export {};\n' }, ctx);
    expect(r).toEqual({
      isError: true,
      content:
        'src/math.js already exists, so it was not created (nothing was written). Read it first; then change it with edit_file, or replace it entirely with write_file and mode "overwrite".',
    });
    expect(await readFile(path.join(root, 'src/math.js'), 'utf8')).toBe(before);
    // Not even the write hook (locks, secret scan) ran: nothing was going to be written.
    expect(writes).toEqual([]);

    const overwritten = await tool('write_file').execute(
      { path: 'src/math.js', content: 'export {};\n', mode: 'overwrite' },
      ctx,
    );
    expect(overwritten).toEqual({ isError: false, content: 'Overwrote src/math.js (2 lines).' });
    expect(await readFile(path.join(root, 'src/math.js'), 'utf8')).toBe('export {};\n');

    const missing = await tool('write_file').execute({ path: 'src/new.js', content: 'x', mode: 'overwrite' }, ctx);
    expect(missing.isError).toBe(true);
    expect(missing.content).toContain('src/new.js does not exist, so there is nothing to overwrite');
  });

  it("seed 000's entry points can be edited but not deleted; seed 003's critical files not written at all", async () => {
    await writeFile(path.join(root, 'package.json'), '{}\n');
    await mkdir(path.join(root, 'agent-config'));
    await writeFile(path.join(root, 'agent-config/query.txt'), 'q\n');
    const del = await tool('delete_file').execute({ path: 'package.json' }, ctx);
    expect(del).toEqual({ isError: true, content: 'path refused (undeletable): "package.json"' });
    const edit = await tool('write_file').execute(
      { path: 'package.json', content: '{"a":1}\n', mode: 'overwrite' },
      ctx,
    );
    expect(edit.isError).toBe(false);
    for (const target of [
      'codeRollup.sh',
      'docs/LLMInstructions.md',
      'spec/UserSpecification.md',
      'agent-config/query.txt',
      'target/x.txt',
    ]) {
      const r = await tool('write_file').execute({ path: target, content: 'x\n', mode: 'create' }, ctx);
      expect(r.content, target).toMatch(/^path refused \(protected\)/);
    }
  });

  it('file tools refuse paths outside the worktree, through symlinks and into .git', async () => {
    await symlink(outside, path.join(root, 'escape'));
    const attempts = [
      tool('read_file').execute({ path: '../outside.txt' }, ctx),
      tool('read_file').execute({ path: path.join(outside, 'canary.txt') }, ctx),
      tool('read_file').execute({ path: 'escape/canary.txt' }, ctx),
      tool('write_file').execute({ path: 'escape/canary.txt', content: 'pwned' }, ctx),
      tool('write_file').execute({ path: '.git/hooks/pre-commit', content: 'pwned' }, ctx),
      tool('write_file').execute({ path: '.env', content: 'X=1' }, ctx),
    ];
    for (const r of await Promise.all(attempts)) {
      expect(r.isError).toBe(true);
      expect(r.content).toMatch(/^path refused \((traversal|absolute|symlink_escape|git_internal|secret_file)\)/);
    }
    expect(await readFile(path.join(outside, 'canary.txt'), 'utf8')).toBe('canary');
  });

  it('invalid input and unknown checks come back as errors the model can read', async () => {
    expect(await tool('edit_file').execute({ path: 'src/math.js' }, ctx)).toMatchObject({
      isError: true,
      content: expect.stringContaining('newText'),
    });
    expect(await tool('run_check').execute({ name: 'deploy' }, ctx)).toEqual({
      isError: true,
      content: 'No check named "deploy". Available: test.',
    });
    expect((await tool('run_check').execute({ name: 'test' }, ctx)).content).toBe(
      'test: FAILED (exit 1, 12 ms)\nFailing tests: adds\n$ npm test\nnot ok 1 - adds',
    );
  });

  it('truncates long output to the head and tail', () => {
    const long = `HEAD${'x'.repeat(50_000)}TAIL`;
    const cut = truncateOutput(long);
    expect(cut.length).toBeLessThan(MAX_TOOL_OUTPUT_CHARS + 100);
    expect(cut.startsWith('HEAD')).toBe(true);
    expect(cut.endsWith('TAIL')).toBe(true);
    expect(cut).toMatch(/\[\d+ characters omitted\]/);
    expect(truncateOutput('short')).toBe('short');
  });

  it.each([
    ['insert_before', { oldText: 'export function sub', newText: '// subtract\n' }, '// subtract\nexport function sub'],
    [
      'insert_after',
      { oldText: 'export function sub(a, b) {', newText: '\n  // body' },
      'export function sub(a, b) {\n  // body\n  return a - b;',
    ],
    ['replace_lines', { line: 2, newText: '  return a + b;' }, 'export function add(a, b) {\n  return a + b;\n}'],
    [
      'replace_lines',
      { line: 5, endLine: 7, newText: 'export const sub = (a, b) => a - b;' },
      '\nexport const sub = (a, b) => a - b;\n',
    ],
    ['insert_at_line', { line: 1, newText: "'use strict';" }, "'use strict';\nexport function add"],
    ['append', { newText: 'export const x = 1;\n' }, '}\nexport const x = 1;\n'],
    ['prepend', { newText: '/* header */\n' }, '/* header */\nexport function add'],
  ])('edit_file mode %s', async (mode, args, expected) => {
    const r = await tool('edit_file').execute({ path: 'src/math.js', mode, ...args }, ctx);
    expect(r.isError).toBe(false);
    expect(await readFile(path.join(root, 'src/math.js'), 'utf8')).toContain(expected);
  });

  it('edit_file line modes refuse lines outside the file and say which modes need what', async () => {
    expect(
      (await tool('edit_file').execute({ path: 'src/math.js', mode: 'replace_lines', line: 99, newText: 'x' }, ctx))
        .content,
    ).toBe('line 99 is outside src/math.js (1-8).');
    expect(
      (await tool('edit_file').execute({ path: 'src/math.js', mode: 'insert_after', newText: 'x' }, ctx)).content,
    ).toMatch(/needs oldText/);
  });

  it('edit_file returns the problems the linter reports after the edit', async () => {
    const linted: ToolContext = { ...ctx, lintFile: async (p) => `${p}:2:3 no-unused-vars` };
    const r = await tool('edit_file').execute({ path: 'src/math.js', mode: 'append', newText: '\n' }, linted);
    expect(r.content).toBe(
      'Edited src/math.js at line 8.\nThe linter reports new problems in src/math.js:\nsrc/math.js:2:3 no-unused-vars',
    );
  });

  it('search respects .gitignore, skips secret files, caps and filters', async () => {
    execFileSync('git', ['init', '-q'], { cwd: root });
    await writeFile(path.join(root, '.gitignore'), 'dist/\n');
    await mkdir(path.join(root, 'dist'));
    await writeFile(path.join(root, 'dist/bundle.js'), 'return a - b;\n');
    await writeFile(path.join(root, '.env'), 'SECRET_RETURN=return a - b;\n');
    const r = await tool('search').execute({ pattern: 'return a - b' }, ctx);
    expect(r.content).toBe('src/math.js:2: return a - b;\nsrc/math.js:6: return a - b;');
    expect((await tool('search').execute({ pattern: 'function', glob: '*.md' }, ctx)).content).toMatch(/^No matches/);
    expect((await tool('search').execute({ pattern: '(' }, ctx)).content).toMatch(
      /^The pattern is not supported: .*missing closing \)/,
    );
    await writeFile(path.join(root, 'src/many.js'), 'hit\n'.repeat(150));
    expect((await tool('search').execute({ pattern: 'hit', path: 'src' }, ctx)).content).toMatch(
      /… 50 more matches; narrow the search\.$/,
    );
  });

  it('delete_file removes a file and refuses protected ones', async () => {
    await writeFile(path.join(root, 'package-lock.json'), '{}');
    expect((await tool('delete_file').execute({ path: 'src/math.js' }, ctx)).content).toBe('Deleted src/math.js.');
    expect(writes).toEqual(['src/math.js']);
    const refused = await tool('delete_file').execute({ path: 'package-lock.json' }, ctx);
    expect(refused).toMatchObject({ isError: true, content: expect.stringMatching(/^path refused \(protected\)/) });
  });

  it('read-only tools for planner and reviewer cannot write or run checks', () => {
    expect(READ_ONLY_TOOLS.map((t) => t.name)).toEqual(['list_dir', 'read_file', 'search']);
  });
});
