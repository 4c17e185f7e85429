import { readFile } from 'node:fs/promises';
import {
  buildRepoMap,
  type CheckRunner,
  guardedFiles,
  type RepoFiles,
  type ToolContext,
  ToolInputError,
  worktreeFiles,
} from '@pullwright/agent';
import type { Policy } from '@pullwright/core';
import type { CommandRunner } from '@pullwright/sandbox';
import { DEFAULT_PROTECTED, PathGuard, type SecretScanner } from '@pullwright/security';
import { DEFAULT_FILE_OPS_PER_MINUTE, FileOperationRate } from './file-operation-rate.ts';
import { LintGate } from './lint-gate.ts';
import type { OperationFileLocks } from './operation-file-locks.ts';
import { checkWrite } from './secret-gate.ts';

interface WorkspaceGateOptions {
  root: string;
  policy: Pick<Policy, 'protected_paths'>;
  scanner: SecretScanner;
  locks: OperationFileLocks;
  checks: CheckRunner;
  runner: CommandRunner;
  /** The repository's one-file lint command (`{file}` is the path), when it has one. */
  lintFile?: string | undefined;
  repoMapTokens: number;
  /** File tool calls per minute (FILE_OPS_PER_MINUTE, default 100). */
  fileOpsPerMinute?: number;
  /**
   * Resolves once the tree's install is done (it runs beside the model's reading): the tree
   * changes only after it, so the install, its scripts and the dependency cache it fills see
   * the commit as it was, never a model's edit. A failed install rejects with its reason.
   */
  installed?: () => Promise<unknown>;
  /**
   * Resolves once `root` holds the worktree: a new operation's first model turn goes out while
   * it is checked out (issue 29), and every tool, read and check waits for it. A failed
   * checkout rejects with the job's end.
   */
  checkedOut?: () => Promise<unknown>;
  /** The commit the worktree is checked out from, read from git objects: the repository map needs no worktree. */
  checkoutOf?: RepoFiles;
}

/**
 * The only way a model loop touches a worktree, whatever the job (run, any revision).
 * Reads and writes go through one PathGuard — traversal, symlinks out of the worktree,
 * `.git/`, secret files — whose protected paths are the built-in ones plus the repository
 * policy's; every write first takes the file's lock (its fencing token is checked again
 * before the push) and is refused if it adds a secret; the one-file lint reports only what
 * the edit added; file tool calls are held to a rate (a model stuck re-reading or rewriting
 * files is told so, and its operation goes on). Jobs get the gate as a whole: none can pass a
 * partial context. Reads go on while the tree's install runs; writes wait for it.
 */
export class WorkspaceGate {
  readonly guard: PathGuard;
  readonly #lint: LintGate | undefined;
  readonly #rate: FileOperationRate;

  constructor(private readonly options: WorkspaceGateOptions) {
    this.#rate = new FileOperationRate(options.fileOpsPerMinute ?? DEFAULT_FILE_OPS_PER_MINUTE);
    this.guard = new PathGuard(options.root, {
      protected: [...DEFAULT_PROTECTED, ...options.policy.protected_paths],
    });
    this.#lint = options.lintFile ? new LintGate(options.root, options.lintFile, options.runner) : undefined;
  }

  /** The tool context every model loop of this job works with. */
  toolContext(): ToolContext {
    const lint = this.#lint;
    const checks = this.options.checks;
    return {
      root: this.options.root,
      guard: this.guard,
      checks: {
        names: () => checks.names(),
        run: async (name, signal) => {
          await this.#checkedOut();
          return checks.run(name, signal);
        },
      },
      onWrite: (rel, content) => this.#beforeWrite(rel, content),
      beforeFileOperation: async (tool) => {
        await this.#checkedOut();
        this.#countFileOperation(tool);
      },
      ...(lint ? { lintFile: (rel: string) => lint.afterWrite(rel) } : {}),
    };
  }

  /** A file's text as the model may see it, or undefined when it is missing or refused. */
  async readFile(rel: string): Promise<string | undefined> {
    await this.#checkedOut();
    const abs = await this.guard.resolveForRead(rel).catch(() => undefined);
    return abs === undefined ? undefined : readFile(abs, 'utf8').catch(() => undefined);
  }

  /**
   * The repository map: of the commit the worktree is being checked out from when there is
   * one (the same files, from git objects: the first model turn need not wait for the
   * checkout), else of the worktree, read through the same guard (a symlinked file is not read).
   */
  repoMap(): Promise<string> {
    const { checkoutOf } = this.options;
    return buildRepoMap(
      checkoutOf ? guardedFiles(this.guard, checkoutOf) : worktreeFiles(this.guard),
      this.options.repoMapTokens,
    );
  }

  /** Locks the files a plan declares, through the operation's locks. */
  normalize(paths: string[]): string[] {
    return paths.flatMap((f) => {
      try {
        return [this.guard.normalize(f)];
      } catch {
        return []; // a path the guard refuses is refused again at write time, with the rule
      }
    });
  }

  #countFileOperation(tool: string): void {
    const waitMs = this.#rate.take();
    if (waitMs === undefined) return;
    throw new ToolInputError(
      `File operation limit reached: at most ${this.#rate.limit} file operations per minute for this operation, so ${tool} did not run. ` +
        `The next one is allowed in ${Math.ceil(waitMs / 1000)} s. Use what you have already read, run a check, or finish.`,
    );
  }

  async #checkedOut(): Promise<void> {
    await this.options.checkedOut?.();
  }

  async #beforeWrite(rel: string, content: string | null): Promise<void> {
    await this.#checkedOut();
    await this.options.installed?.();
    await this.options.locks.lockForWrite(this.guard.normalize(rel));
    const before = await readFile(await this.guard.resolveForWrite(rel), 'utf8').catch(() => undefined);
    if (content !== null) checkWrite(this.options.scanner, rel, before, content);
    await this.#lint?.beforeWrite(rel, before !== undefined);
  }
}
