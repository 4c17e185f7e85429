import type { Step } from '../frame/job-frame.ts';
import { dependencyCacheOf, installDependencies, operationEgress } from './install-dependencies.ts';
import { type WorkContext, workOf } from './work-context.ts';

/** install: the repository's dependencies in this job's worktree, before the baseline and the model. */
export const installStep: Step<WorkContext> = {
  name: 'install',
  async run(ctx) {
    const { commands, ws, baseSha } = workOf(ctx);
    if (!commands.install) return { skipped: 'no install command' };
    const how = await installDependencies(
      ctx.deps.runner,
      commands.install,
      ws.dir,
      ctx.deps.redactor,
      operationEgress(ctx.deps, ctx.op.id, 'install'),
      await dependencyCacheOf(ctx.deps, ctx.op.repo, baseSha),
    );
    return { command: commands.install.command, how };
  },
};
