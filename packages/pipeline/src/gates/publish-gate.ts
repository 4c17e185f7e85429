import type { Operation } from '@pullwright/core';
import {
  describeOutboundFinding,
  type OutboundFinding,
  type PublishableChange,
  scanPublishableChange,
} from '@pullwright/security';
import { listPushContent } from '@pullwright/workspace';
import { StopOperation } from '../frame/stop-operation.ts';
import { publishedPullRequestBody } from '../pull-request-body.ts';
import { type WorkContext, workOf } from '../steps/work-context.ts';

/**
 * The publish gate: nothing a job wrote reaches the forge except through here. In order:
 * the commit (local); a remote branch that holds only commits we made (never overwrite a
 * push); the secret scan of exactly what the push will send — every new commit's message,
 * every blob its trees add (binary files and `-diff` files included, encoded and split
 * secrets decoded and joined), the branch name, the PR's title and body — failing closed (a
 * secret a changed file already held on the start commit is recorded as pre-existing and
 * does not block); the
 * operation's budget; the fencing tokens of every changed file's lock; the push, without
 * force, with a fresh token. Returns the new head.
 */
export async function publishChange(
  ctx: WorkContext,
  publish: { message: string; trailers: Record<string, string>; texts?: PublishableChange['texts'] },
): Promise<string> {
  const { deps } = ctx;
  const { workspace } = deps;
  const { ws, startSha, branch, budget } = workOf(ctx);

  await workspace.commitAll(ws.dir, publish.message, { ...publish.trailers, ...coAuthorTrailer(ctx) });
  const headSha = await workspace.headSha(ws.dir);
  // A fresh token: the model loop may have outlived the first one.
  const auth = await deps.forge.gitAuth(ctx.op.repo, ctx.tokenHolder);
  const remoteSha = await workspace.remoteBranchSha(ws.dir, branch, auth);
  if (remoteSha && !(await workspace.isAncestor(ws.dir, remoteSha, headSha))) {
    throw new StopOperation(
      'failed',
      `branch ${branch} on the forge has commits this operation did not make (${remoteSha.slice(0, 12)}); not overwriting them`,
    );
  }

  let findings: OutboundFinding[];
  try {
    const content = await listPushContent(ws.dir, headSha, remoteSha ? [startSha, remoteSha] : [startSha]);
    findings = scanPublishableChange(deps.scanner, {
      branch,
      commits: content.commits,
      files: content.files,
      ...(publish.texts ? { texts: publish.texts } : {}),
    });
  } catch (err) {
    throw new StopOperation('failed', `commit blocked: the secret scan failed: ${(err as Error).message}`);
  }
  ctx.op = await deps.store.patch(
    ctx.opId,
    {
      findings: findings.map((f) => ({
        ruleId: f.ruleId,
        file: f.where,
        line: f.line,
        preview: f.preview,
        channel: f.channel,
        ...(f.preExisting ? { preExisting: true } : {}),
      })),
    },
    {
      type: 'step',
      data: {
        step: 'secret_scan',
        findings: findings.filter((f) => !f.preExisting).length,
        preExisting: findings.filter((f) => f.preExisting).length,
      },
    },
  );
  const added = findings.filter((f) => !f.preExisting);
  if (added.length > 0) {
    throw new StopOperation(
      'failed',
      `commit blocked: the change adds ${added.length} secret(s): ${added.map(describeOutboundFinding).join('; ')}`,
    );
  }
  const over = budget.overspent();
  if (over) throw new StopOperation('failed', `budget exhausted: ${over}`);
  await ctx.locks.fence(await workspace.changedFiles(ws.dir, startSha));

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
 * Credits the requester on every commit the operation makes, when their identity (IDENTITIES)
 * has an email: GitHub links a `Co-authored-by:` trailer to the account with that address.
 */
function coAuthorTrailer(ctx: Pick<WorkContext, 'deps' | 'op'>): Record<string, string> {
  const who = ctx.deps.approvalPolicy.identity(ctx.op.requester);
  return who.email ? { 'Co-authored-by': `${who.id} <${who.email}>` } : {};
}

/**
 * The PR description for `headSha`, with the verification block signed for exactly that head.
 * Every push rewrites it (a run's PR, every revision, every base merge), so the receipt on the
 * PR always describes its current head.
 */
export function pullRequestBodyFor(deps: WorkContext['deps'], op: Operation, headSha: string): string {
  return publishedPullRequestBody(op, op.summary ?? '', headSha, deps.redactor, deps.verificationKey);
}
