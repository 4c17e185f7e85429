import type { Step } from '../frame/job-frame.ts';
import { dependencyCacheOf, installDependencies, operationEgress } from '../work/install-dependencies.ts';
import { type WorkContext, workOf } from '../work/work-context.ts';

/**
 * install: the repository's dependencies in this job's worktree, beside the model's first
 * turns (issue 29): planning needs none, so the model starts before it (and, for a new run,
 * before the worktree's checkout, which the install waits for).
 * The worktree's commands (checks, lint, verification) wait for it through the tree's runner,
 * and a failed install fails the job at the first of them, with the install's output. A
 * `step` event (`state: 'ready'`) says when it is done and how (cache layer, copy, install).
 */
export const installStep: Step<WorkContext> = {
  name: 'install',
  async run(ctx) {
    const { deps } = ctx;
    const { commands, ws, baseSha, dependencies, checkedOut } = workOf(ctx);
    const started = Date.now();
    dependencies.begin(async (signal) => {
      // A new run's worktree may still be checking out beside the model's first turn.
      await checkedOut;
      const cached = await dependencyCacheOf(deps, ctx.op.repo, baseSha);
      const installed = await installDependencies(
        deps.runner,
        commands.install,
        ws.dir,
        deps.redactor,
        operationEgress(deps, ctx.op.id, 'install'),
        cached && { ...cached, layer: true },
        signal,
      );
      await deps.events.append(ctx.opId, 'step', {
        step: 'install',
        state: 'ready',
        job: ctx.kind,
        durationMs: Date.now() - started,
        how: installed.how,
      });
      return installed;
    });
    return commands.install
      ? { command: commands.install.command, beside: 'the model' }
      : { skipped: 'no install command' };
  },
};
