import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PathGuard } from '@pullwright/security';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgentLoop } from '../agent-loop.ts';
import { BudgetTracker } from '../budget-tracker.ts';
import type { ModelProvider, ModelResponse } from '../model-provider.ts';
import type { CheckRunner, ToolContext } from './define-tool.ts';
import { ALL_TOOLS } from './index.ts';

const tool = (name: string) => ALL_TOOLS.find((t) => t.name === name)!;
const checks: CheckRunner = { names: () => [], run: async () => Promise.reject(new Error('no checks')) };
const LONG = 'a'.repeat(300);

/** An errno error as node's fs throws it. */
function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: operation failed, open '/srv/worktrees/op-1/x'`), { code, errno: -1 });
}

/** A guard that lets the path through and then fails the way the filesystem would. */
class FailingGuard extends PathGuard {
  constructor(
    root: string,
    readonly code: string,
  ) {
    super(root);
  }
  override async resolveForRead(): Promise<string> {
    throw errno(this.code);
  }
  override async resolveForWrite(): Promise<string> {
    throw errno(this.code);
  }
}

const FILE_TOOLS: Array<[string, Record<string, unknown>]> = [
  ['list_dir', {}],
  ['read_file', {}],
  ['edit_file', { oldText: 'a', newText: 'b' }],
  ['write_file', { content: 'x' }],
  ['delete_file', {}],
];

/** Error class → what the model must read (the fix), whatever the tool. */
const ERROR_CLASSES: Array<[string, RegExp]> = [
  ['ENOENT', /does not exist\. Check the path/],
  ['ENOTDIR', /(is a file: use read_file|goes through a file)/],
  ['EISDIR', /is a directory: (use list_dir|name a file inside it)/],
  ['ENAMETOOLONG', /too long .*use a shorter name/],
  ['ELOOP', /loop of symbolic links/],
  ['EACCES', /permission denied\): choose another file/],
  ['EPERM', /permission denied\): choose another file/],
  ['EROFS', /read-only file system/],
  ['EEXIST', /(already exists|goes through a file)/],
  ['ENOTEMPTY', /not empty/],
  ['EINVAL', /not a valid path/],
  ['ENOSPC', /No space left/],
  ['EMFILE', /try the call again/],
  ['EIO', /failed on `x`: EIO: operation failed/],
];

describe('file tools never throw a filesystem error', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'pw-tool-errors-'));
    await mkdir(path.join(root, 'src'));
    await writeFile(path.join(root, 'README.md'), '# hello\n');
    await symlink('loop', path.join(root, 'loop'));
    execFileSync('git', ['init', '-q', root]);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));
  const ctx = (guard = new PathGuard(root)): ToolContext => ({ root, guard, checks });

  describe.each(ERROR_CLASSES)('%s', (code, message) => {
    it.each(FILE_TOOLS)('through %s: an error the model can act on', async (name, extra) => {
      const outcome = await tool(name).execute({ path: 'x', ...extra }, ctx(new FailingGuard(root, code)));
      expect(outcome.isError).toBe(true);
      expect(outcome.content).toMatch(message);
    });
  });

  it.each([
    ['list_dir', { path: 'README.md' }, /^`README\.md` is a file: use read_file\.$/],
    ['read_file', { path: 'README.md/x' }, /`README\.md\/x` goes through a file/],
    ['edit_file', { path: 'README.md/x', oldText: 'a', newText: 'b' }, /goes through a file/],
    ['write_file', { path: 'README.md/x', content: 'x' }, /goes through a file/],
    ['delete_file', { path: 'README.md/x' }, /goes through a file/],
    ['write_file', { path: 'src', content: 'x' }, /path refused \(special_file\): "src"/],
    ['edit_file', { path: 'src', oldText: 'a', newText: 'b' }, /path refused \(special_file\): "src"/],
    ...FILE_TOOLS.map(
      ([name, extra]) =>
        [name, { path: `src/${LONG}`, ...extra }, /too long|does not exist/] as [string, object, RegExp],
    ),
    ['read_file', { path: 'loop' }, /loop|symbolic link|refused/i],
    ['search', { pattern: 'x', path: LONG }, /No matches/],
  ])('real filesystem: %s %o', async (name, input, message) => {
    const outcome = await tool(name).execute(input, ctx());
    expect(outcome.content).toMatch(message);
    expect(outcome.content).not.toContain(root);
  });

  it('the agent loop carries on after tool errors and the model finishes its work', async () => {
    const script: ModelResponse[] = [
      {
        content: [
          { type: 'tool_use', id: 't1', name: 'list_dir', input: { path: 'README.md' } },
          { type: 'tool_use', id: 't2', name: 'read_file', input: { path: LONG } },
          { type: 'tool_use', id: 't3', name: 'write_file', input: { path: 'src', content: 'x' } },
        ],
        stopReason: 'tool_use',
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        model: 'replay:scripted',
      },
      {
        content: [{ type: 'text', text: 'done' }],
        stopReason: 'end_turn',
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        model: 'replay:scripted',
      },
    ];
    const provider: ModelProvider = { name: 'scripted', complete: async () => script.shift()! };
    const result = await runAgentLoop({
      provider,
      system: 's',
      task: 't',
      tools: ALL_TOOLS,
      context: ctx(),
      budget: new BudgetTracker({ turns: 10, tokens: 1e6, wallMs: 60_000, costUsd: 1 }),
    });
    expect(result).toMatchObject({ stop: 'completed', turns: 2, finalText: 'done' });
    const results = result.messages[2]!.content;
    expect(results).toEqual([
      expect.objectContaining({ isError: true, content: '`README.md` is a file: use read_file.' }),
      expect.objectContaining({ isError: true, content: expect.stringMatching(/too long|does not exist/) }),
      expect.objectContaining({ isError: true, content: 'path refused (special_file): "src"' }),
    ]);
  });
});
