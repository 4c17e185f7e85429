import type { BudgetTracker } from '@pullwright/agent';
import { isPullwrightError } from '@pullwright/core';
import type { FrameContext } from '../frame/job-frame.ts';
import { StopOperation } from '../frame/stop-operation.ts';

/** Backoff between attempts: 1 s, doubling, at most 30 s. */
const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 30_000;

/** A forge failure that another try may not repeat: no answer, 5xx, 429 (forge_failed with `transient`). */
function isTransientForgeFailure(err: unknown): err is Error {
  return isPullwrightError(err) && err.code === 'forge_failed' && err.context.transient === true;
}

/** The forge as people know it, never where it lives: GitHub (with its host), or the local forge. */
function forgeName(ctx: FrameContext): string {
  if (ctx.deps.forge.name !== 'github') return 'the local forge';
  const host = /^[a-z]+:\/\/([^/]+)/i.exec(ctx.deps.forge.cloneUrl(ctx.op.repo))?.[1];
  return host ? `GitHub (${host})` : 'GitHub';
}

/**
 * Runs one forge interaction of the publish step, trying again with backoff while the forge
 * does not answer or answers 5xx — for FORGE_RETRY_MS, and never past the operation's time
 * budget. A forge unavailable for 20 s at publish used to fail the operation at once as an
 * "internal error". When it persists, the operation fails with a reason naming the forge and
 * what it answered (an HTTP status when it answered at all).
 */
export async function withForgeRetries<T>(
  ctx: FrameContext,
  budget: Pick<BudgetTracker, 'limits' | 'spent'>,
  doing: string,
  fn: (attempt: number) => Promise<T>,
): Promise<T> {
  const started = Date.now();
  let delay = FIRST_DELAY_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (!isTransientForgeFailure(err)) throw err;
      const elapsed = Date.now() - started;
      const budgetLeft = budget.limits.wallMs - budget.spent.wallMs;
      if (elapsed + delay > ctx.deps.forgeRetryMs || delay > budgetLeft) {
        throw new StopOperation({
          code: 'forge_unavailable',
          forge: forgeName(ctx),
          detail: `${doing} was tried ${attempt} times over ${Math.round(elapsed / 1000)} s; ${err.message}`,
        });
      }
      ctx.log.warn({ attempt, delayMs: delay, err: err.message }, `forge unavailable while ${doing}; retrying`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
  }
}
