import type { Logger } from '@pullwright/core';
import { GitHubForge } from '@pullwright/forge';
import { type Runtime, TEST_FILE } from '@pullwright/pipeline';
import { sanitizeUntrustedText } from '@pullwright/security';
import { gitClient } from '@pullwright/workspace';
import type { ChangeCandidate } from './change-candidate.ts';
import { defaultBranch } from './default-branch.ts';
import type { EvalTask } from './eval-task.ts';
import { mergeHistory } from './merge-history.ts';
import { mergedPullRequests } from './merged-pull-requests.ts';
import { TreeTests } from './tree-tests.ts';

type TaskMinerDeps = Pick<
  Runtime,
  'workspace' | 'forge' | 'runner' | 'redactor' | 'dependencies' | 'checkTimeoutMs' | 'logger' | 'egress'
>;

interface MineOptions {
  /** At most this many tasks, newest first (default 20). */
  limit?: number;
  /** Only changes merged at or after this time. */
  since?: Date;
  /** The branch whose merges are walked; default the forge's default branch. */
  branch?: string;
}

/** A change that did not become a task, and why (shown by `eval mine`, so a team sees what its history gives). */
interface SkippedChange {
  id: string;
  reason: string;
}

interface MineResult {
  repo: string;
  branch: string;
  tasks: EvalTask[];
  skipped: SkippedChange[];
}

/** Who holds the git token mining uses (GitHub: an installation token of its own, revoked at the end). */
const TOKEN_HOLDER = 'eval-mine';

/**
 * Turns a repository's merged changes into evaluation tasks (SWE-bench instance format). The
 * candidates are the GitHub forge's merged pull requests, or the branch's merges and fix
 * commits (local forge). A candidate becomes a task when its change touches both code and
 * tests, its tests fail on the base with the test change applied and pass on the merge —
 * each run in the sandbox with the base's commands — and at least one test the runner names
 * goes from red to green. The tests that pass on both sides must stay green.
 */
export class TaskMiner {
  readonly #tests: TreeTests;
  readonly #log: Logger;

  constructor(private readonly deps: TaskMinerDeps) {
    this.#tests = new TreeTests(deps);
    this.#log = deps.logger.child({ component: 'eval-mine' });
  }

  async mine(repo: string, options: MineOptions = {}): Promise<MineResult> {
    const { workspace, forge } = this.deps;
    const limit = options.limit ?? 20;
    const auth = await forge.gitAuth(repo, TOKEN_HOLDER);
    try {
      const mirror = await workspace.syncMirror(repo, forge.cloneUrl(repo), auth);
      const branch = options.branch ?? (await defaultBranch(mirror, forge.cloneUrl(repo), auth));
      const candidates =
        forge instanceof GitHubForge
          ? await mergedPullRequests(forge, mirror, repo, branch, limit, options.since)
          : await mergeHistory(mirror, branch, options.since);
      const tasks: EvalTask[] = [];
      const skipped: SkippedChange[] = [];
      for (const candidate of candidates) {
        if (tasks.length >= limit) break;
        const outcome = await this.#examine(repo, mirror, candidate);
        if ('reason' in outcome) skipped.push({ id: candidate.id, reason: outcome.reason });
        else tasks.push(outcome);
        this.#log.info({ candidate: candidate.id, task: !('reason' in outcome) }, 'change examined');
      }
      return { repo, branch, tasks, skipped };
    } finally {
      await forge.revokeToken(repo, TOKEN_HOLDER).catch(() => undefined);
    }
  }

  async #examine(repo: string, mirror: string, c: ChangeCandidate): Promise<EvalTask | { reason: string }> {
    const git = gitClient(mirror);
    const files = (await git.raw(['diff', '--name-only', '-z', '--no-renames', c.baseSha, c.mergeSha]))
      .split('\0')
      .filter(Boolean);
    const testFiles = files.filter((f) => TEST_FILE.test(f));
    const codeFiles = files.filter((f) => !TEST_FILE.test(f));
    if (testFiles.length === 0) return { reason: 'the change touches no test' };
    if (codeFiles.length === 0) return { reason: 'the change touches tests only' };
    const problem = sanitizeUntrustedText(c.problem);
    if (!problem) return { reason: 'no problem statement (empty message or description)' };
    const diff = (paths: string[]) =>
      git.raw([
        'diff',
        '--binary',
        '--no-renames',
        '--no-color',
        '--no-ext-diff',
        c.baseSha,
        c.mergeSha,
        '--',
        ...paths,
      ]);
    const [patch, testPatch] = [await diff(codeFiles), await diff(testFiles)];
    let commands: Awaited<ReturnType<TreeTests['commandsAt']>>;
    try {
      commands = await this.#tests.commandsAt(repo, c.baseSha);
    } catch (err) {
      return { reason: (err as Error).message };
    }
    const red = await this.#tests.run(repo, c.baseSha, [{ label: 'the test change', diff: testPatch }], commands);
    if (!red.ok) return { reason: `on the base: ${red.problem}` };
    if (red.run.passed) return { reason: 'its tests already pass on the base' };
    const green = await this.#tests.run(
      repo,
      c.baseSha,
      [
        { label: 'the code change', diff: patch },
        { label: 'the test change', diff: testPatch },
      ],
      commands,
    );
    if (!green.ok) return { reason: `on the merge: ${green.problem}` };
    if (!green.run.passed) return { reason: 'its tests do not pass on the merge' };
    const passedBefore = new Set(red.passed);
    const failToPass = green.passed.filter((t) => !passedBefore.has(t));
    if (failToPass.length === 0)
      return { reason: 'no test the runner names goes from red to green (see docs/eval.md: test names)' };
    return {
      instance_id: `${repo.replace('/', '__')}-${c.id}`,
      repo,
      base_commit: c.baseSha,
      problem_statement: problem,
      patch,
      test_patch: testPatch,
      FAIL_TO_PASS: failToPass,
      PASS_TO_PASS: green.passed.filter((t) => passedBefore.has(t)),
      created_at: c.mergedAt,
    };
  }
}
