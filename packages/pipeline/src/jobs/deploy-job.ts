import type { Operation } from '@pullwright/core';
import { type FrameContext, type JobDefinition, runJob } from '../frame/job-frame.ts';
import type { PipelineDeps } from '../frame/pipeline-deps.ts';
import { releaseFeatureRequest } from './feature-release.ts';

/** The `deploy` job: claim → deploy hook → follow status → (rollback) → release. */
const DEPLOY_JOB: JobDefinition<FrameContext> = {
  kind: 'deploy',
  async claim(_deps, op) {
    return op.status === 'merged' && op.deploy?.status === 'running' ? op : undefined;
  },
  context: (deps, op, log) => ({ deps, kind: 'deploy', opId: op.id, op, log }),
  steps: [
    {
      name: 'deploy',
      async run(ctx) {
        ctx.op = await ctx.deps.deployer.followUp(ctx.opId);
        await releaseFeatureRequest(ctx.deps, ctx.op);
        return { status: ctx.op.deploy?.status };
      },
    },
  ],
  // A deploy's outcome is its record; the operation stays merged whatever the deploy did.
  stop: async (ctx, stop) =>
    ctx.op.deploy?.status === 'running' ? ctx.deps.deployer.fail(ctx.opId, stop.reason) : ctx.op,
  release: async () => undefined,
};

export function deployOperation(opId: string, deps: PipelineDeps): Promise<Operation> {
  return runJob(DEPLOY_JOB, opId, deps);
}
