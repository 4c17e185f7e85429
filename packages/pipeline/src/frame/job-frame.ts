import {
  type Checkpoint,
  inSpan,
  isPullwrightError,
  isTransientError,
  type Logger,
  mapOutcomeText,
  type Operation,
  outcomeOfError,
  type StepFacts,
  withoutHostPaths,
} from '@pullwright/core';
import { syncIssueTracking } from '../tracking/issue-tracking.ts';
import type { PipelineDeps } from './pipeline-deps.ts';
import { StopOperation } from './stop-operation.ts';

/** The job types of the `code-operations` queue (see the job catalog in @pullwright/queue). */
export type JobKind = 'run' | 'revise' | 'merge' | 'deploy';

/**
 * What every step sees: the operation as it stands, and the frame's services. A job's own
 * state (the worktree, the checks…) lives on its context type, which extends this one.
 */
export interface FrameContext {
  readonly deps: PipelineDeps;
  readonly kind: JobKind;
  readonly opId: string;
  readonly log: Logger;
  /** The operation as last written by this job; steps replace it with what the store returns. */
  op: Operation;
}

/**
 * One named step. `run` may return data for its `finished` event; a step with a
 * `checkpoint` has it recorded on the operation once it finished, and reads it on resume
 * (a retried job skips what is already done). Core's `Checkpoint` names the ones read: the
 * solve step's `agent_done`; every other step is safe to run again.
 */
export interface Step<C extends FrameContext> {
  readonly name: string;
  readonly checkpoint?: Checkpoint;
  /** What the step reports on its `step` event (core `StepFacts`). */
  run(ctx: C): Promise<StepFacts | undefined>;
}

export interface JobDefinition<C extends FrameContext> {
  readonly kind: JobKind;
  /**
   * Takes the operation for this job (e.g. queued → running), or returns undefined when
   * there is nothing to do (already done, or not this job's turn).
   */
  claim(deps: PipelineDeps, op: Operation): Promise<Operation | undefined>;
  context(deps: PipelineDeps, op: Operation, log: Logger): C;
  readonly steps: readonly Step<C>[];
  /** Between steps: a reason to stop now (a cancel request), or undefined. */
  interrupted?(ctx: C): Promise<StopOperation | undefined>;
  /**
   * The one place this job ends an operation that stopped, with the stop's outcome. `ctx.op`
   * is fresh from the store; an operation already final (ended elsewhere) is left as it is,
   * except by a deploy, which runs on a merged operation and records its own outcome.
   */
  stop(ctx: C, stop: StopOperation): Promise<Operation>;
  /** Always runs last: locks, tokens, worktrees. `finished` is false when the job will run again. */
  release(ctx: C, finished: boolean): Promise<void>;
}

/** Any error as a stop: our own errors by their code (`outcomeOfError`); anything else is an internal error. */
function asStop(err: unknown): StopOperation {
  if (err instanceof StopOperation) return err;
  if (isPullwrightError(err)) return new StopOperation(outcomeOfError(err.code, err.message));
  return new StopOperation({ code: 'internal', detail: (err as Error)?.message ?? String(err) });
}

/**
 * The job frame every job type runs in: claim, the steps in order (with a cancel check
 * between them, a started/finished event and duration for each, and the checkpoint of a step
 * that declares one), one place that ends the operation with a status and a reason, and
 * release whatever happened. A transient error (Redis away) is rethrown: the job runs again,
 * skipping what its checkpoint says is done and resuming the solve from its journal.
 * Operators get one log line when the job starts, one per step and one when it ends, and a
 * trace span for the job with one child per step.
 */
export function runJob<C extends FrameContext>(
  def: JobDefinition<C>,
  opId: string,
  deps: PipelineDeps,
): Promise<Operation> {
  return inSpan(`job ${def.kind}`, { 'pullwright.operation.id': opId, 'pullwright.job': def.kind }, () =>
    framedJob(def, opId, deps),
  );
}

async function framedJob<C extends FrameContext>(
  def: JobDefinition<C>,
  opId: string,
  deps: PipelineDeps,
): Promise<Operation> {
  const current = await deps.store.get(opId);
  const claimed = await def.claim(deps, current);
  if (!claimed) {
    deps.logger.info({ opId, job: def.kind, status: current.status }, 'nothing to do');
    return deps.store.get(opId);
  }
  const log = deps.logger.child({ opId, job: def.kind });
  const ctx = def.context(deps, claimed, log);
  log.info({ status: claimed.status, repo: claimed.repo, type: claimed.type }, 'job started');
  let finished = false;
  try {
    for (const step of def.steps) {
      const stop = await def.interrupted?.(ctx);
      if (stop) throw stop;
      const started = Date.now();
      await deps.events.append(opId, 'step', { step: step.name, state: 'started', job: def.kind });
      const data = await inSpan(`step ${step.name}`, { 'pullwright.step': step.name }, () => step.run(ctx));
      if (step.checkpoint && !ctx.op.checkpoints.includes(step.checkpoint)) {
        ctx.op = await deps.store.patch(
          opId,
          { checkpoints: [...ctx.op.checkpoints, step.checkpoint] },
          { type: 'checkpoint', data: { step: step.checkpoint } },
        );
      }
      await deps.events.append(opId, 'step', {
        step: step.name,
        state: 'finished',
        job: def.kind,
        durationMs: Date.now() - started,
        ...data,
      });
      log.info({ step: step.name, durationMs: Date.now() - started }, 'step finished');
      // An operation that came from an issue keeps the issue's comment current, step by step.
      await syncIssueTracking(deps, ctx.op, `${def.kind}: ${step.name} done`);
    }
    finished = true;
    const done = await deps.store.get(opId);
    log.info({ status: done.status }, 'job finished');
    await syncIssueTracking(deps, done);
    return done;
  } catch (err) {
    if (isTransientError(err)) throw err;
    finished = true;
    const stop = asStop(err);
    if (!(err instanceof StopOperation) && !isPullwrightError(err)) log.error({ err }, 'job crashed');
    ctx.op = await deps.store.get(opId);
    // Every outcome an operation ends with passes here: no secret, no absolute path of this host.
    const cleaned = new StopOperation(mapOutcomeText(stop.outcome, (t) => withoutHostPaths(deps.redactor.redact(t))));
    log.info({ status: cleaned.status, code: cleaned.outcome.code, reason: cleaned.reason }, 'job stopped');
    const ended = await def.stop(ctx, cleaned);
    await syncIssueTracking(deps, ended);
    return ended;
  } finally {
    await def.release(ctx, finished).catch((err) => log.warn({ err }, 'release failed'));
    await deps.events.append(opId, 'step', { step: 'release', job: def.kind }).catch(() => undefined);
  }
}
