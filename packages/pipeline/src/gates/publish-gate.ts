import type { Operation } from '@pullwright/core';
import type { SecretFinding } from '@pullwright/security';
import { StopOperation } from '../frame/stop-operation.ts';
import { publishedPullRequestBody } from '../pull-request-body.ts';
import { describeFinding } from '../secret-gate.ts';
import { type WorkContext, workOf } from '../steps/work-context.ts';

/**
 * The publish gate: nothing a job wrote reaches the forge except through here. In order:
 * the secret scan of exactly what will be pushed (fails closed: a scanner error blocks);
 * the operation's budget; the commit; the fencing tokens of every changed file's lock; a
 * remote branch that holds only commits we made (never overwrite a push); the push, without
 * force, with a fresh token. Returns the new head.
 */
export async function publishChange(
  ctx: WorkContext,
  commit: { message: string; trailers: Record<string, string> },
): Promise<string> {
  const { deps } = ctx;
  const { workspace } = deps;
  const { ws, startSha, branch, budget } = workOf(ctx);

  let findings: SecretFinding[];
  try {
    findings = deps.scanner.scanDiff(await workspace.diff(ws.dir, startSha));
  } catch (err) {
    throw new StopOperation('failed', `commit blocked: the secret scan failed: ${(err as Error).message}`);
  }
  ctx.op = await deps.store.patch(
    ctx.opId,
    { findings },
    { type: 'step', data: { step: 'secret_scan', findings: findings.length } },
  );
  if (findings.length > 0) {
    throw new StopOperation(
      'failed',
      `commit blocked: the change adds ${findings.length} secret(s): ${findings.map(describeFinding).join('; ')}`,
    );
  }
  const over = budget.overspent();
  if (over) throw new StopOperation('failed', `budget exhausted: ${over}`);

  await workspace.commitAll(ws.dir, commit.message, commit.trailers);
  const headSha = await workspace.headSha(ws.dir);
  await ctx.locks.fence(await workspace.changedFiles(ws.dir, startSha));
  // A fresh token: the model loop may have outlived the first one.
  const auth = await deps.forge.gitAuth(ctx.op.repo, ctx.tokenHolder);
  const remoteSha = await workspace.remoteBranchSha(ws.dir, branch, auth);
  if (remoteSha && !(await workspace.isAncestor(ws.dir, remoteSha, headSha))) {
    throw new StopOperation(
      'failed',
      `branch ${branch} on the forge has commits this operation did not make (${remoteSha.slice(0, 12)}); not overwriting them`,
    );
  }
  if (remoteSha !== headSha)
    await workspace.push(ws.dir, branch, { ...(auth ? { auth } : {}), expectedRemoteSha: remoteSha ?? '' });
  ctx.op = await deps.store.patch(
    ctx.opId,
    { headSha },
    { type: 'step', data: { step: 'push', branch, headSha, job: ctx.kind } },
  );
  return headSha;
}

/**
 * The PR description for `headSha`, with the verification block signed for exactly that head.
 * Every push rewrites it (a run's PR, every revision, every base merge), so the receipt on the
 * PR always describes its current head.
 */
export function pullRequestBodyFor(deps: WorkContext['deps'], op: Operation, headSha: string): string {
  return publishedPullRequestBody(op, op.summary ?? '', headSha, deps.redactor, deps.verificationKey);
}
