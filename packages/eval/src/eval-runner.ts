import { randomBytes } from 'node:crypto';
import {
  FINAL_STATUSES,
  type Operation,
  type OperationEvent,
  type OutcomeCode,
  PullwrightError,
  ValidationError,
} from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';
import { EVAL_CHANGE_ARTIFACT } from '@pullwright/queue';
import { gitClient } from '@pullwright/workspace';
import { defaultBranch } from './default-branch.ts';
import { type AttemptReason, type AttemptResult, buildReport, type EvalReport, taskResult } from './eval-report.ts';
import type { EvalTask } from './eval-task.ts';
import { firstLine } from './first-line.ts';
import { gradeAttempt } from './grade-attempt.ts';
import { TreeTests, type TreeTestsDeps } from './tree-tests.ts';

type EvalRunnerDeps = TreeTestsDeps & Pick<Runtime, 'store' | 'queue' | 'events' | 'artifacts' | 'forge'>;

interface EvalRunOptions {
  /** The tasks file's name: the report's suite. */
  suite: string;
  /** The model the report names. */
  model: string;
  /** The model every attempt is pinned to: whichever worker takes one answers it with that model. None: the workers' own (recordings name theirs). */
  pinnedModel?: string;
  /** Attempts per task (pass@k). */
  attempts: number;
  /** An earlier run of the same tasks (any model), to say which flipped. */
  earlier?: EvalReport;
  /** How often the attempts' operations are looked at while they run (default 1 s). */
  pollMs?: number;
  /** One line per attempt as it is graded. */
  onProgress?: (line: string) => void;
}

/** Who holds the git token the runner's own fetches use (GitHub: revoked at the end). */
const TOKEN_HOLDER = 'eval-run';

/** The outcome codes (core `Outcome`, as /metrics counts them) an evaluation names; any other is an `error`. */
const REASON_OF_OUTCOME: Readonly<Partial<Record<OutcomeCode, AttemptReason>>> = {
  no_change: 'no_change',
  budget: 'budget',
  checks_failed: 'checks_red',
  // The fixer gave up on a failure that came back after its repairs: the checks stayed red.
  stuck: 'checks_red',
};

interface Attempt {
  task: EvalTask;
  attempt: number;
  opId: string;
}

/**
 * Runs evaluation tasks as ordinary operations: one `fix` operation per task and attempt on
 * the code queue (priority low: the team's own requests go first), run by the workers with
 * their sandbox, gates, budget, model and tools, in evaluation mode (the operation's `eval`
 * field: a worktree of the base commit alone, nothing pushed, no PR; see the pipeline's run
 * job). Each attempt is graded once its operation has ended: a recorded change gets the hidden
 * tests (see `gradeAttempt`); any other end is unsolved with the operation's reason.
 */
export class EvalRunner {
  readonly #tests: TreeTests;

  constructor(private readonly deps: EvalRunnerDeps) {
    this.#tests = new TreeTests(deps);
  }

  async run(tasks: readonly EvalTask[], options: EvalRunOptions): Promise<EvalReport> {
    const { deps } = this;
    if (!deps.runner.sandboxed)
      throw new PullwrightError(
        'config_invalid',
        'an evaluation needs the sandbox: under SANDBOX=none the code an attempt runs could read the history that followed its base; set SANDBOX=bubblewrap or docker',
      );
    const startedAt = new Date().toISOString();
    const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
    const branches = await this.#prepareRepositories(tasks);
    const attempts: Attempt[] = [];
    for (let attempt = 1; attempt <= options.attempts; attempt++)
      for (const task of tasks) {
        const op = await deps.store.create({
          type: 'fix',
          repo: task.repo,
          baseBranch: branches.get(task.repo)!,
          baseSha: task.base_commit,
          description: task.problem_statement.slice(0, 20_000),
          requester: { source: 'api', user: 'eval' },
          confirmPlan: false,
          priority: 'low',
          eval: {
            run,
            instance: task.instance_id,
            attempt,
            ...(options.pinnedModel ? { model: options.pinnedModel } : {}),
          },
        });
        await deps.queue.add('run', { opId: op.id, priority: op.priority });
        attempts.push({ task, attempt, opId: op.id });
      }
    const graded = await this.#gradeAsTheyEnd(attempts, options);
    const results = tasks.map((task) =>
      taskResult(
        task.instance_id,
        attempts.filter((a) => a.task === task).map((a) => graded.get(a.opId)!),
      ),
    );
    return buildReport(
      {
        run,
        suite: options.suite,
        model: options.model,
        startedAt,
        finishedAt: new Date().toISOString(),
        attemptsPerTask: options.attempts,
      },
      results,
      options.earlier,
    );
  }

  /** Each repository fetched once: it must exist on the forge and hold every task's base commit. Returns its default branch. */
  async #prepareRepositories(tasks: readonly EvalTask[]): Promise<Map<string, string>> {
    const { forge, workspace } = this.deps;
    const branches = new Map<string, string>();
    const issues: { field: string; reason: string }[] = [];
    for (const repo of new Set(tasks.map((t) => t.repo))) {
      if (!(await forge.repositoryExists(repo))) {
        issues.push({
          field: repo,
          reason: 'is not on the forge (pullwright repo add it, or install the GitHub App on it)',
        });
        continue;
      }
      const auth = await forge.gitAuth(repo, TOKEN_HOLDER);
      try {
        const mirror = await workspace.syncMirror(repo, forge.cloneUrl(repo), auth);
        branches.set(repo, await defaultBranch(mirror, forge.cloneUrl(repo), auth));
        for (const task of tasks.filter((t) => t.repo === repo)) {
          const known = await gitClient(mirror)
            .raw(['cat-file', '-e', `${task.base_commit}^{commit}`])
            .then(
              () => true,
              () => false,
            );
          if (!known)
            issues.push({ field: task.instance_id, reason: `base commit ${task.base_commit} is not in ${repo}` });
        }
      } finally {
        await forge.revokeToken(repo, TOKEN_HOLDER).catch(() => undefined);
      }
    }
    if (issues.length > 0)
      throw new ValidationError(`cannot run: ${issues.map((i) => `${i.field} ${i.reason}`).join('; ')}`, issues);
    return branches;
  }

  /** Waits for every attempt's operation to end, grading each as soon as it has. */
  async #gradeAsTheyEnd(attempts: Attempt[], options: EvalRunOptions): Promise<Map<string, AttemptResult>> {
    const pending = new Map(attempts.map((a) => [a.opId, a]));
    const graded = new Map<string, AttemptResult>();
    while (pending.size > 0) {
      for (const [opId, a] of pending) {
        const op = await this.deps.store.get(opId);
        if (!FINAL_STATUSES.has(op.status)) continue;
        pending.delete(opId);
        const result = await this.#result(a, op);
        graded.set(opId, result);
        options.onProgress?.(
          `${a.task.instance_id} #${a.attempt}: ${result.reason}${result.detail ? ` (${result.detail})` : ''}`,
        );
      }
      if (pending.size > 0) await new Promise((r) => setTimeout(r, options.pollMs ?? 1000));
    }
    return graded;
  }

  async #result(a: Attempt, op: Operation): Promise<AttemptResult> {
    const events = await this.deps.events.list(op.id, '-', 100_000);
    const spend = {
      attempt: a.attempt,
      opId: op.id,
      costUsd: op.usage.costUsd,
      tokens: op.usage.inputTokens + op.usage.outputTokens,
      turns: op.usage.modelCalls,
      repairs: events.filter((e) => e.type === 'phase' && e.data.phase === 'repair').length,
      wallMs: wallTime(op, events),
    };
    if (op.status !== 'evaluated') {
      const reason = (op.outcome && REASON_OF_OUTCOME[op.outcome.code]) ?? 'error';
      const detail = firstLine(op.error ?? op.status);
      return { ...spend, solved: false, reason, ...(detail ? { detail } : {}) };
    }
    const change = await this.deps.artifacts.read(op.id, EVAL_CHANGE_ARTIFACT);
    if (!change || change.truncated)
      return { ...spend, solved: false, reason: 'error', detail: 'the recorded change is missing or was cut short' };
    // One attempt that cannot be graded (its base lost its test command…) is that attempt's error, not the run's.
    const grade = await gradeAttempt(this.#tests, a.task, change.content).catch((err: unknown) => ({
      solved: false,
      reason: 'error' as const,
      detail: `grading failed: ${firstLine(err)}`,
    }));
    return { ...spend, solved: grade.solved, reason: grade.reason, ...(grade.detail ? { detail: grade.detail } : {}) };
  }
}

/** From the claim (status running) to the operation's last write. */
function wallTime(op: Operation, events: OperationEvent[]): number {
  const claimed = events.find((e) => e.type === 'status' && e.data.to === 'running');
  const from = Date.parse(claimed?.ts ?? op.createdAt);
  return Math.max(0, Date.parse(op.updatedAt) - from);
}
