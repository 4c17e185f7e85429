import type { BudgetTracker } from '@pullwright/agent';
import type { Operation } from '@pullwright/core';
import { EVAL_CHANGE_ARTIFACT } from '@pullwright/queue';
import { describeOutboundFinding, type PublishableChange } from '@pullwright/security';
import type { PreparedWorkspace } from '@pullwright/workspace';
import type { FrameContext } from '../frame/job-frame.ts';
import type { PipelineDeps } from '../frame/pipeline-deps.ts';
import { StopOperation } from '../frame/stop-operation.ts';
import { publishedPullRequestBody } from '../tracking/pull-request-body.ts';
import { withForgeRetries } from './forge-retries.ts';
import type { OperationFileLocks } from './operation-file-locks.ts';
import { publishCommits } from './publish-commits.ts';
import { type ScannedPush, scanPush } from './scanned-push.ts';

/** The job that publishes (a run, a revision): its frame, whose token pushes, the file locks it fences. */
interface PublishingJob extends FrameContext {
  readonly tokenHolder: string;
  readonly locks: Pick<OperationFileLocks, 'fence'>;
}

/** What the gate reads of the prepared work: the worktree and its branch, where the change starts, the budget. */
interface WorkToPublish {
  readonly ws: PreparedWorkspace;
  readonly branch: string;
  readonly baseSha: string;
  readonly startSha: string;
  readonly budget: BudgetTracker;
}

/**
 * The publish gate: nothing a job wrote reaches the forge except through here. In order:
 * the commit (local); a remote branch that holds only commits we made (never overwrite a
 * push); the gate every change passes (`passGate`: the secret scan of exactly what the push
 * will send — a secret a changed file already held on the start commit is recorded as
 * pre-existing and does not block —, the budget, the lock fencing); the publish, without force,
 * with a fresh token: through the forge's API, which signs the commits, or a push where that
 * is impossible (`publishCommits`; the operation's `commitSignature` says which). The forge's answers are retried while it is unavailable
 * (withForgeRetries). Returns the new head.
 */
export async function publishChange(
  ctx: PublishingJob,
  work: WorkToPublish,
  publish: { message: string; trailers: Record<string, string>; texts?: PublishableChange['texts'] },
): Promise<string> {
  const { deps } = ctx;
  const { workspace } = deps;
  const { ws, startSha, branch, budget } = work;

  await workspace.commitAll(ws.dir, publish.message, { ...publish.trailers, ...coAuthorTrailer(ctx) });
  const headSha = await workspace.headSha(ws.dir);
  // A fresh token: the model loop may have outlived the first one.
  const { auth, remoteSha } = await withForgeRetries(ctx, budget, `reading ${branch} on the forge`, async () => {
    const auth = await deps.forge.gitAuth(ctx.op.repo, ctx.tokenHolder);
    return { auth, remoteSha: await workspace.remoteBranchSha(ws.dir, branch, auth) };
  });
  if (remoteSha && !(await workspace.isAncestor(ws.dir, remoteSha, headSha))) {
    throw new StopOperation({
      code: 'conflict',
      detail: `branch ${branch} on the forge has commits this operation did not make (${remoteSha.slice(0, 12)}); not overwriting them`,
    });
  }
  const since = remoteSha ? [startSha, remoteSha] : [startSha];
  const scanned = await passGate(ctx, work, headSha, since, publish.texts);
  const published =
    remoteSha === headSha
      ? undefined
      : await withForgeRetries(ctx, budget, `pushing ${branch}`, (attempt) =>
          // An attempt whose answer was lost may have landed: then there is nothing left to do.
          publishCommits(
            deps,
            { repo: ctx.op.repo, dir: ws.dir, auth, expectedRemoteSha: remoteSha, scanned },
            attempt,
          ),
        );
  const newHead = published?.headSha ?? headSha;
  ctx.op = await deps.store.patch(
    ctx.opId,
    { headSha: newHead, ...(published ? { commitSignature: published.signature } : {}) },
    { type: 'step', data: { step: 'push', branch, headSha: newHead, job: ctx.kind } },
  );
  if (published) await deps.events.append(ctx.opId, 'commit_signature', { ...published.signature, headSha: newHead });
  return newHead;
}

/**
 * An evaluation attempt's end of the publish gate (see @pullwright/eval): the same commit,
 * secret scan of what a push would send, budget and lock fencing as `publishChange`, then the
 * change is kept as the operation's `EVAL_CHANGE_ARTIFACT` (a binary-safe diff against the
 * base) for grading instead of being pushed. Its worktree holds the base alone and has no
 * remote: there is nowhere else it could go. Returns the new head.
 */
export async function recordChange(
  ctx: PublishingJob,
  work: WorkToPublish,
  publish: { message: string; trailers: Record<string, string> },
): Promise<string> {
  const { deps } = ctx;
  const { workspace } = deps;
  const { ws, startSha, baseSha } = work;
  await workspace.commitAll(ws.dir, publish.message, publish.trailers);
  const headSha = await workspace.headSha(ws.dir);
  await passGate(ctx, work, headSha, [startSha]);
  await deps.artifacts.put(ctx.opId, EVAL_CHANGE_ARTIFACT, await workspace.diff(ws.dir, baseSha, { binary: true }));
  ctx.op = await deps.store.patch(
    ctx.opId,
    { headSha },
    { type: 'step', data: { step: 'record', headSha, job: ctx.kind } },
  );
  return headSha;
}

/**
 * What every change passes before it may leave the worktree: the secret scan of exactly what
 * a push of `headSha` would send over `since` — every new commit's message, every blob its
 * trees add (binary files and `-diff` files included, encoded and split secrets decoded and
 * joined), the branch name, the PR's texts — failing closed; the operation's budget; the
 * fencing tokens of every changed file's lock.
 */
async function passGate(
  ctx: PublishingJob,
  work: WorkToPublish,
  headSha: string,
  since: string[],
  texts?: PublishableChange['texts'],
): Promise<ScannedPush> {
  const { deps } = ctx;
  const { ws, startSha, branch, budget } = work;
  const scan = await scanPush(deps.scanner, ws.dir, { branch, headSha, since, ...(texts ? { texts } : {}) }).catch(
    (err: Error) => {
      throw new StopOperation({ code: 'secret_found', detail: `the secret scan failed: ${err.message}` });
    },
  );
  // A nested repository is refused like a protected path, whoever committed it.
  if (scan.gitlinks.length > 0)
    throw new StopOperation({
      code: 'path_refused',
      path: scan.gitlinks.join(', '),
      detail: 'the change adds a nested git repository (gitlink) there; nested repositories are never published',
    });
  const { findings } = scan;
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
    throw new StopOperation({
      code: 'secret_found',
      detail: `the change adds ${added.length} secret(s): ${added.map(describeOutboundFinding).join('; ')}`,
    });
  }
  if (!scan.clearance)
    throw new StopOperation({ code: 'secret_found', detail: 'the secret scan did not clear the push' });
  const over = budget.overspent();
  if (over) throw new StopOperation({ code: 'budget', detail: over });
  await ctx.locks.fence(await deps.workspace.changedFiles(ws.dir, startSha));
  return scan.clearance;
}

/**
 * Credits the requester on every commit the operation makes, when their identity (IDENTITIES)
 * has an email: GitHub links a `Co-authored-by:` trailer to the account with that address.
 */
function coAuthorTrailer(ctx: Pick<FrameContext, 'deps' | 'op'>): Record<string, string> {
  const who = ctx.deps.approvalPolicy.identity(ctx.op.requester);
  return who.email ? { 'Co-authored-by': `${who.id} <${who.email}>` } : {};
}

/**
 * The PR description for `headSha`, with the verification block signed for exactly that head.
 * Every push rewrites it (a run's PR, every revision, every base merge), so the receipt on the
 * PR always describes its current head.
 */
export function pullRequestBodyFor(deps: PipelineDeps, op: Operation, headSha: string): string {
  return publishedPullRequestBody(op, op.summary ?? '', headSha, deps.redactor, deps.verificationKey);
}
