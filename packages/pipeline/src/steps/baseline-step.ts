import { type BaselineCheck, failureFingerprint } from '@pullwright/agent';
import type { CommandRunner } from '@pullwright/sandbox';
import { type CheckResultCache, commandLines, RepoChecks, type RepoCommands } from '../checks/repo-checks.ts';
import type { Step } from '../frame/job-frame.ts';
import { dependencyCacheOf, installDependencies, operationEgress } from '../work/install-dependencies.ts';
import { TreeDependencies } from '../work/tree-dependencies.ts';
import { type WorkContext, workOf } from '../work/work-context.ts';

/** Every check once on a tree, as a baseline entry (with the fingerprint of a failure). */
async function runBaseline(
  dir: string,
  commands: RepoCommands,
  runner: CommandRunner,
  cache: { results: CheckResultCache; repo: string },
  signal: AbortSignal,
): Promise<Record<string, BaselineCheck>> {
  const checks = new RepoChecks(dir, commands, runner, { cache });
  const out: Record<string, BaselineCheck> = {};
  for (const name of checks.names()) {
    const r = await checks.run(name, signal);
    if (signal.aborted) throw new Error('baseline stopped: the job ended');
    out[name] = {
      passed: r.passed,
      failingTests: r.failingTests,
      ...(r.passed ? {} : { fingerprint: failureFingerprint(r.name, r.output) }),
    };
  }
  return out;
}

const summary = (baseline: Record<string, BaselineCheck>) =>
  Object.fromEntries(Object.entries(baseline).map(([k, v]) => [k, v.passed]));

/**
 * baseline: how the checks do on the base commit, so only new failures count — for a run
 * and for every revision alike. Stored per (repository, base sha, check commands). When no
 * operation has computed it yet it runs beside the model's loop, in a checkout of the base
 * of its own (dependencies from the cache the worktree's install fills: it waits for that
 * install rather than running a second one beside it): the model needs it
 * only when its change is judged, and its first call should not wait for a whole suite.
 * Its runs go to the check cache, so the model's reproduction on the untouched base waits
 * for the same run instead of starting a second one. A `step` event (`state: 'ready'`) says
 * when it is known.
 */
export const baselineStep: Step<WorkContext> = {
  name: 'baseline',
  async run(ctx) {
    const { deps } = ctx;
    const { commands, baseSha, dependencies } = workOf(ctx);
    const repo = ctx.op.repo;
    const lines = commandLines(commands);
    const stored = await deps.baselines.stored(repo, baseSha, lines);
    if (stored) {
      ctx.baseline = Promise.resolve(stored);
      return { cached: true, checks: summary(stored) };
    }
    const run = new AbortController();
    const started = Date.now();
    ctx.baselineRun = run;
    ctx.baseline = deps.workspace.withTemporaryWorktree(repo, baseSha, async (dir) => {
      // The worktree's install fills the cache this one reads; its failure ends the job elsewhere.
      await dependencies.ready().catch(() => undefined);
      const tree = new TreeDependencies(deps.dependencies);
      const cached = await dependencyCacheOf(deps, repo, baseSha);
      tree.begin((signal) =>
        installDependencies(
          deps.runner,
          commands.install,
          dir,
          deps.redactor,
          operationEgress(deps, ctx.opId, 'baseline'),
          cached && { ...cached, layer: true },
          signal,
        ),
      );
      const baseline = await runBaseline(
        dir,
        commands,
        tree.runner(deps.runner),
        { results: deps.checkResults, repo },
        run.signal,
      ).finally(() => tree.release());
      await deps.baselines.store(repo, baseSha, lines, baseline);
      await deps.events.append(ctx.opId, 'step', {
        step: 'baseline',
        state: 'ready',
        job: ctx.kind,
        durationMs: Date.now() - started,
        cached: false,
        checks: summary(baseline),
      });
      return baseline;
    });
    // Awaited by the verification; until then a failure must not count as unhandled.
    ctx.baseline.catch(() => undefined);
    return { cached: false, beside: 'the model' };
  },
};
