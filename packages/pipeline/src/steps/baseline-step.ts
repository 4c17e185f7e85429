import { type BaselineCheck, failureFingerprint } from '@pullwright/agent';
import type { CommandRunner } from '@pullwright/sandbox';
import type { Step } from '../frame/job-frame.ts';
import { type CheckResultCache, commandLines, RepoChecks, type RepoCommands } from '../repo-checks.ts';
import { dependencyCacheOf, installDependencies } from './install-dependencies.ts';
import { type WorkContext, workOf } from './work-context.ts';

/** Every check once on a tree, as a baseline entry (with the fingerprint of a failure). */
async function runBaseline(
  dir: string,
  commands: RepoCommands,
  runner: CommandRunner,
  cache: { results: CheckResultCache; repo: string },
): Promise<Record<string, BaselineCheck>> {
  const checks = new RepoChecks(dir, commands, runner, { cache });
  const out: Record<string, BaselineCheck> = {};
  for (const name of checks.names()) {
    const r = await checks.run(name);
    out[name] = {
      passed: r.passed,
      failingTests: r.failingTests,
      ...(r.passed ? {} : { fingerprint: failureFingerprint(r.name, r.output) }),
    };
  }
  return out;
}

/**
 * baseline: how the checks do on the base commit, so only new failures count — for a run
 * and for every revision alike. Cached per (repository, base sha, check commands); computed
 * in this job's worktree while it still is the base (a fresh run), else in a checkout of the
 * base with its own install (a resumed run, a revision on top of the PR's commits).
 */
export const baselineStep: Step<WorkContext> = {
  name: 'baseline',
  async run(ctx) {
    const { deps } = ctx;
    const { ws, commands, baseSha, startSha } = workOf(ctx);
    const atBase = !ws.resumed && startSha === baseSha;
    const cache = { results: deps.checkResults, repo: ctx.op.repo };
    const { baseline, cached } = await deps.baselines.get(ctx.op.repo, baseSha, commandLines(commands), () =>
      atBase
        ? runBaseline(ws.dir, commands, deps.runner, cache)
        : deps.workspace.withTemporaryWorktree(ctx.op.repo, baseSha, async (dir) => {
            await installDependencies(
              deps.runner,
              commands.install,
              dir,
              deps.redactor,
              await dependencyCacheOf(deps, ctx.op.repo, baseSha),
            );
            return runBaseline(dir, commands, deps.runner, cache);
          }),
    );
    ctx.baseline = baseline;
    return { cached, checks: Object.fromEntries(Object.entries(baseline).map(([k, v]) => [k, v.passed])) };
  },
};
