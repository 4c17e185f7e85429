import * as nodeFs from 'node:fs/promises';
import path from 'node:path';
import { PullwrightError } from '@pullwright/core';
import { FILE_SIZE_LIMITS, formatBytes } from '../tools/file-size-limits.ts';
import type { FileBlock, FileBlockProblem } from './parse-file-blocks.ts';

/** Resolves a model-supplied path for writing or deleting, or throws; `PathGuard` from @pullwright/security fits. */
interface WriteGuard {
  resolveForWrite(requested: string): Promise<string>;
  resolveForDelete(requested: string): Promise<string>;
}

interface AppliedFileBlock {
  /** Relative to the root, posix separators. */
  path: string;
  action: 'created' | 'updated' | 'deleted';
}

/** The file operations used, replaceable so a test can make one of them fail. */
export type FileIo = Pick<typeof nodeFs, 'lstat' | 'readFile' | 'writeFile' | 'rm' | 'mkdir' | 'realpath'>;

/** The size of a regular file, or undefined for anything else. */
async function fileSize(io: FileIo, p: string): Promise<number | undefined> {
  return (await io.lstat(p).catch(() => undefined))?.size;
}

/** Nothing was written: every problem found in the verification pass is listed. */
export class FileBlocksRejectedError extends PullwrightError<{ problems: FileBlockProblem[] }> {
  /** `refused`: the guard turned at least one path down (protected, traversal, secret…). */
  constructor(problems: FileBlockProblem[], refused: boolean) {
    super(
      refused ? 'path_refused' : 'validation_failed',
      `file blocks rejected, nothing written:\n${problems.map((p) => `  ${p.message}`).join('\n')}`,
      { problems },
    );
  }
}

/** An I/O failure during the write pass; every file already touched was put back. */
export class FileBlocksWriteError extends PullwrightError<{ path: string }> {
  constructor(rel: string, cause: unknown) {
    super('agent_failed', `writing ${rel} failed, all changes of this response rolled back`, { path: rel }, { cause });
  }
}

interface Planned {
  block: FileBlock;
  abs: string;
  rel: string;
  existing: Buffer | undefined;
}

async function kindOf(io: FileIo, p: string): Promise<'file' | 'dir' | 'other' | 'missing'> {
  try {
    const st = await io.lstat(p);
    return st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other';
  } catch (err) {
    // ENOTDIR: an ancestor is a file, reported by parentProblem.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw err;
  }
}

/** The nearest existing ancestor must be a directory, or mkdir -p fails mid-write. */
async function parentProblem(io: FileIo, abs: string, root: string): Promise<string | undefined> {
  for (let dir = path.dirname(abs); dir.length >= root.length; dir = path.dirname(dir)) {
    const kind = await kindOf(io, dir);
    if (kind === 'dir') return undefined;
    if (kind !== 'missing') return `${path.relative(root, dir)} is a file, not a directory`;
    if (dir === path.dirname(dir)) break;
  }
  return undefined;
}

function usesCrlf(existing: Buffer | undefined): boolean {
  if (!existing) return false;
  const nl = existing.indexOf(10);
  return nl > 0 && existing[nl - 1] === 13;
}

async function verify(root: string, blocks: FileBlock[], guard: WriteGuard, io: FileIo): Promise<Planned[]> {
  const problems: FileBlockProblem[] = [];
  const planned: Planned[] = [];
  const seen = new Map<string, number>();
  let refused = false;
  for (const block of blocks) {
    const problem = (message: string) =>
      problems.push({ line: block.line, path: block.path, message: `line ${block.line} ${block.path}: ${message}` });
    let abs: string;
    try {
      abs = await (block.kind === 'delete' ? guard.resolveForDelete(block.path) : guard.resolveForWrite(block.path));
    } catch (err) {
      refused = true;
      // The guard's message names the rule, never content (PathRefusedError).
      problem(err instanceof Error ? err.message : String(err));
      continue;
    }
    const rel = path.relative(root, abs);
    // Defence in depth: a guard rooted elsewhere must not become a way out.
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
      refused = true;
      problem('path refused (outside the worktree)');
      continue;
    }
    const relPosix = rel.split(path.sep).join('/');
    const earlier = seen.get(abs);
    if (earlier !== undefined) {
      problem(`also changed by the block at line ${earlier}; send one block per file`);
      continue;
    }
    seen.set(abs, block.line);
    const kind = await kindOf(io, abs);
    if (block.kind === 'delete' && kind !== 'file') {
      problem(kind === 'missing' ? 'nothing to delete: the file does not exist' : 'only files can be deleted');
      continue;
    }
    if (block.kind === 'write' && (kind === 'dir' || kind === 'other')) {
      problem('is a directory or special file, not a regular file');
      continue;
    }
    const parent = block.kind === 'write' ? await parentProblem(io, abs, root) : undefined;
    if (parent) {
      problem(parent);
      continue;
    }
    // Kept in memory to undo a failed write: bounded like every file tool (a check can leave a file of any size).
    const size = kind === 'file' ? await fileSize(io, abs) : 0;
    const written = block.kind === 'write' ? Buffer.byteLength(block.content) : 0;
    if ((size ?? 0) > FILE_SIZE_LIMITS.writeBytes || written > FILE_SIZE_LIMITS.writeBytes) {
      problem(
        `is ${Math.max(size ?? 0, written)} bytes; file blocks change files of up to ${formatBytes(FILE_SIZE_LIMITS.writeBytes)}`,
      );
      continue;
    }
    planned.push({ block, abs, rel: relPosix, existing: kind === 'file' ? await io.readFile(abs) : undefined });
  }
  // A block writing `a` as a file while another writes `a/b` would fail halfway through.
  for (const p of planned) {
    const nested = planned.find((q) => q !== p && q.block.kind === 'write' && q.abs.startsWith(p.abs + path.sep));
    if (nested && p.block.kind === 'write') {
      problems.push({
        line: p.block.line,
        path: p.block.path,
        message: `line ${p.block.line} ${p.block.path}: written as a file, but the block at line ${nested.block.line} puts ${nested.block.path} inside it`,
      });
    }
  }
  if (problems.length > 0) throw new FileBlocksRejectedError(problems, refused);
  return planned;
}

/**
 * Applies parsed file blocks all or nothing. First every block is verified (the guard
 * accepts the path, a delete has a file to delete, a write does not land on a
 * directory, no file is named twice); any problem rejects the whole response before a
 * single byte is written. Then the blocks are applied in order; if the disk fails
 * midway, the files already changed are restored.
 *
 * A file that uses CRLF keeps CRLF: models answer in LF, and converting a whole file's
 * line endings would bury the real change in the diff.
 */
export async function applyFileBlocks(
  root: string,
  blocks: FileBlock[],
  guard: WriteGuard,
  io: FileIo = nodeFs,
): Promise<AppliedFileBlock[]> {
  const rootReal = await io.realpath(root);
  const planned = await verify(rootReal, blocks, guard, io);
  const undo: Array<() => Promise<unknown>> = [];
  const applied: AppliedFileBlock[] = [];
  for (const p of planned) {
    const previous = p.existing;
    try {
      if (p.block.kind === 'delete') {
        undo.push(() => io.writeFile(p.abs, previous ?? ''));
        await io.rm(p.abs);
        applied.push({ path: p.rel, action: 'deleted' });
        continue;
      }
      const content = usesCrlf(previous) ? p.block.content.replaceAll('\n', '\r\n') : p.block.content;
      const madeDir = await io.mkdir(path.dirname(p.abs), { recursive: true });
      if (madeDir) undo.push(() => io.rm(madeDir, { recursive: true, force: true }));
      // Registered before the write: a write that fails halfway leaves a torn file to undo.
      undo.push(() => (previous === undefined ? io.rm(p.abs, { force: true }) : io.writeFile(p.abs, previous)));
      await io.writeFile(p.abs, content);
      applied.push({ path: p.rel, action: previous === undefined ? 'created' : 'updated' });
    } catch (err) {
      for (const step of undo.reverse()) await step().catch(() => {});
      throw new FileBlocksWriteError(p.rel, err);
    }
  }
  return applied;
}
