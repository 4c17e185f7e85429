import { blockingFailures, type CheckRun, truncateOutput } from '@pullwright/agent';
import { toCheckResults } from '../budget/operation-accounting.ts';
import type { Step } from '../frame/job-frame.ts';
import { StopOperation } from '../frame/stop-operation.ts';
import { baselineOf, type WorkContext, workOf } from '../work/work-context.ts';

export function checkFailureText(run: CheckRun, redactor: { redact(s: string): string }): string {
  const why = run.timedOut ? 'timed out' : `exited with ${run.exitCode}`;
  return `check "${run.name}" ${why}:\n${redactor.redact(truncateOutput(run.output.trim(), 4000))}`;
}

/**
 * verify: the checks on the final tree (the model loop's last run when it has one, else run
 * now), judged against the base: only failures the base did not have block, for every job
 * type; a fix or a debug must also turn a red `test` check green; a revision must also keep
 * every check that passed on the head it revises. A revision that
 * changed nothing has nothing to verify.
 */
export const verifyStep: Step<WorkContext> = {
  name: 'verify',
  async run(ctx) {
    const { deps } = ctx;
    const { ws, startSha, baseSha, checks } = workOf(ctx);
    const changed = await deps.workspace.changedFiles(ws.dir, startSha);
    if (changed.length === 0) {
      if (ctx.kind === 'run') throw new StopOperation({ code: 'no_change', detail: 'the model made no changes' });
      // The head is unchanged, so its checks stand: the event says so (every view reads
      // `passed`; without it the timeline showed a red "Checks failed" for a no-change revision).
      return { files: [], passed: true, unchanged: true };
    }
    let runs = ctx.finalChecks;
    if (!runs) {
      runs = [];
      for (const name of checks.names()) runs.push(await checks.run(name));
    }
    const type = ctx.kind === 'revise' ? 'revise' : ctx.op.type;
    // A revision is also judged against the head it revises: a check green there must stay
    // green (a test the PR fixed may be red on the base, which alone would call it pre-existing).
    const greenOnHead = ctx.kind === 'revise' ? ctx.op.checks.filter((c) => c.passed).map((c) => c.name) : [];
    const blocking = blockingFailures(type, runs, await baselineOf(ctx), greenOnHead);
    ctx.op = await deps.store.patch(
      ctx.opId,
      {
        filesChanged: await deps.workspace.changedFiles(ws.dir, baseSha),
        checks: toCheckResults(runs, blocking, deps.redactor),
      },
      { type: 'checkpoint', data: { step: 'checks', passed: blocking.length === 0 } },
    );
    if (blocking[0])
      throw new StopOperation({ code: 'checks_failed', detail: checkFailureText(blocking[0], deps.redactor) });
    ctx.finalChecks = runs;
    return { files: changed, passed: true, preExisting: runs.filter((r) => !r.passed).map((r) => r.name) };
  },
};
