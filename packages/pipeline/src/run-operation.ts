import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type BaselineCheck,
  BudgetTracker,
  buildRepoMap,
  type CheckRun,
  newFailuresOf,
  type SolveResult,
  solveRequest,
  TranscriptWriter,
  truncateOutput,
} from '@pullwright/agent';
import {
  branchNameFor,
  type Checkpoint,
  FINAL_STATUSES,
  isPullwrightError,
  isTransientError,
  type Operation,
} from '@pullwright/core';
import { artifactAppender, TRANSCRIPT_ARTIFACT } from '@pullwright/queue';
import { DEFAULT_PROTECTED, PathGuard, type SecretFinding } from '@pullwright/security';
import { LintGate } from './lint-gate.ts';
import { budgetLimits, tightestBudget, toCheckResults, tokenHolder, usageRecorder } from './operation-accounting.ts';
import { OperationFileLocks } from './operation-file-locks.ts';
import type { PipelineDeps } from './pipeline-deps.ts';
import {
  awaitPlanConfirmation,
  DEFAULT_PLAN_CONFIRMATION_TIMEOUT_MS,
  needsPlanConfirmation,
  planWithNote,
} from './plan-confirmation.ts';
import { openedNote, publishedPullRequestBody } from './pull-request-body.ts';
import { redGreenEvidence } from './red-green.ts';
import { detectRepoCommands, RepoChecks, refusedCheck } from './repo-checks.ts';
import { trackingBody } from './revise-operation.ts';
import { checkWrite, describeFinding } from './secret-gate.ts';

/** Ends the pipeline with a final status; thrown by steps, caught once in `runOperation`. */
class StopOperation extends Error {
  constructor(
    readonly status: 'failed' | 'cancelled',
    readonly reason: string,
  ) {
    super(reason);
  }
}

function withCheckpoint(op: Operation, step: Checkpoint): Checkpoint[] {
  return op.checkpoints.includes(step) ? op.checkpoints : [...op.checkpoints, step];
}

/**
 * The `run` job: claim → prepare → agent loop → verify → publish → awaiting_approval.
 * Every step records a checkpoint, so a job retried after a crash resumes where it was.
 * Whatever happens, the operation ends in a status with a reason.
 */
export async function runOperation(opId: string, deps: PipelineDeps): Promise<Operation> {
  const { store, events, logger } = deps;
  let op = await store.get(opId);
  if (op.status === 'queued') op = await store.transition(opId, 'running', {}, { step: 'claim' });
  else if (op.status !== 'running') {
    logger.info({ opId, status: op.status }, 'nothing to run');
    return op;
  }
  const log = logger.child({ opId });
  let finished = false;
  const locks = new OperationFileLocks(
    deps.fileLocks,
    op.repo,
    opId,
    log,
    async (holder) => (await store.find(holder))?.status === 'running',
  );
  try {
    op = await execute(op, deps, locks);
    finished = true;
    return op;
  } catch (err) {
    // Redis away for a moment: the job runs again from its checkpoints; ending the
    // operation now would turn an outage into a failure.
    if (isTransientError(err)) throw err;
    const stop =
      err instanceof StopOperation
        ? err
        : new StopOperation(
            'failed',
            isPullwrightError(err) ? err.message : `internal error: ${(err as Error).message}`,
          );
    if (!(err instanceof StopOperation) && !isPullwrightError(err)) log.error({ err }, 'operation crashed');
    const reason = deps.redactor.redact(stop.reason);
    const current = await store.get(opId);
    finished = true;
    if (FINAL_STATUSES.has(current.status)) return current;
    log.info({ status: stop.status }, 'operation stopped');
    return store.transition(opId, stop.status, { error: reason });
  } finally {
    await locks.release().catch((err) => log.warn({ err }, 'file lock release failed'));
    await deps.forge
      .revokeToken(op.repo, tokenHolder(opId, 'run'))
      .catch((err) => log.warn({ err }, 'token revoke failed'));
    if (finished)
      await deps.workspace.remove(opId, op.repo).catch((err) => log.warn({ err }, 'worktree cleanup failed'));
    await events.append(opId, 'step', { step: 'release' }).catch(() => undefined);
  }
}

async function execute(initial: Operation, deps: PipelineDeps, locks: OperationFileLocks): Promise<Operation> {
  const { store, events, workspace, forge, redactor } = deps;
  const opId = initial.id;
  let op = initial;
  const cancelled = async () => {
    const cur = await store.get(opId);
    if (cur.status !== 'running') return `operation is ${cur.status}`;
    return cur.cancelRequested ? 'cancelled on request' : undefined;
  };
  const stopIfCancelled = async () => {
    const reason = await cancelled();
    if (reason) throw new StopOperation('cancelled', reason);
  };

  // prepare
  await stopIfCancelled();
  const branch = op.branch ?? branchNameFor(op);
  // A token of this operation's own (GitHub: scoped to this repository), revoked when the job ends.
  const auth = await forge.gitAuth(op.repo, tokenHolder(opId, 'run'));
  const ws = await workspace.prepare({
    opId,
    repo: op.repo,
    cloneUrl: forge.cloneUrl(op.repo),
    baseBranch: op.baseBranch,
    branch,
    ...(auth ? { auth } : {}),
  });
  const baseSha = op.baseSha ?? ws.baseSha;
  op = await store.patch(
    opId,
    { branch, baseSha, checkpoints: withCheckpoint(op, 'prepared') },
    { type: 'step', data: { step: 'prepare', branch, baseSha, resumed: ws.resumed } },
  );

  locks.keep();
  // The policy comes from the base commit's .pullwright.yml, fixed at claim: a change the
  // agent makes to it cannot loosen the rules its own PR is judged by.
  if (!op.policy) op = await deps.approvalPolicy.atClaim(opId, ws.dir);
  const commands = detectRepoCommands(ws.dir);
  if (!commands.checks.test) {
    throw new StopOperation(
      'failed',
      'no test command found: add checks.test to .pullwright.yml or a "test" script to package.json',
    );
  }
  const refused = refusedCheck(commands);
  if (refused) throw new StopOperation('failed', refused);
  const checkEvents = (run: CheckRun) =>
    events
      .append(opId, 'check', {
        name: run.name,
        passed: run.passed,
        exitCode: run.exitCode,
        durationMs: run.durationMs,
        failingTests: run.failingTests,
      })
      .then(() => undefined);
  const checksIn = (dir: string, report = true) =>
    new RepoChecks(dir, commands.checks, deps.runner, deps.checkTimeoutMs, report ? checkEvents : undefined);
  const checks = checksIn(ws.dir);

  // install: the one step allowed network, before any untrusted change exists
  if (commands.install) {
    await events.append(opId, 'step', { step: 'install', command: commands.install });
    const r = await deps.runner.run({
      command: commands.install,
      cwd: ws.dir,
      root: ws.dir,
      timeoutMs: deps.checkTimeoutMs,
      network: true,
    });
    if (r.exitCode !== 0) {
      throw new StopOperation(
        'failed',
        `dependency install (${commands.install}) failed:\n${redactor.redact(truncateOutput(r.output.trim(), 4000))}`,
      );
    }
  }

  // baseline: how the checks do on the base commit, so only new failures count
  const runAll = async (runner: RepoChecks) => {
    const out: Record<string, BaselineCheck> = {};
    for (const name of runner.names()) {
      const r = await runner.run(name);
      out[name] = { passed: r.passed, failingTests: r.failingTests };
    }
    return out;
  };
  const { baseline, cached } = await deps.baselines.get(op.repo, baseSha, commands.checks, () =>
    ws.resumed
      ? workspace.withTemporaryWorktree(op.repo, baseSha, (dir) => runAll(checksIn(dir, false)))
      : runAll(checksIn(ws.dir, false)),
  );
  await events.append(opId, 'step', {
    step: 'baseline',
    cached,
    checks: Object.fromEntries(Object.entries(baseline).map(([k, v]) => [k, v.passed])),
  });

  // agent: plan → code → verify → repair → review
  let finalChecks: CheckRun[] | undefined;
  let summary = op.summary ?? '';
  if (!op.checkpoints.includes('agent_done')) {
    const transcriptPath = path.join(deps.transcriptsDir, `${opId}.jsonl`);
    const policy = deps.approvalPolicy.policyOf(op);
    // The policy's protected paths add to the built-in ones (lock files, CI, .gitignore…).
    const guard = new PathGuard(ws.dir, { protected: [...DEFAULT_PROTECTED, ...policy.protected_paths] });
    const lint = commands.lintFile ? new LintGate(ws.dir, commands.lintFile, deps.runner) : undefined;
    // Time spent waiting for a person to confirm the plan is not the model's time.
    let confirmationWaitMs = 0;
    const budget = new BudgetTracker(
      tightestBudget(budgetLimits(deps.budget, op.budget), policy.budgets),
      Date.now(),
      () => Date.now() - confirmationWaitMs,
    );
    await store.patch(
      opId,
      { transcriptPath },
      { type: 'step', data: { step: 'agent', state: 'started', checks: Object.keys(commands.checks) } },
    );
    const result = await solveRequest({
      type: op.type,
      task: taskText(op),
      repoMap: await buildRepoMap(ws.dir, deps.repoMapTokens),
      provider: deps.createProvider(op),
      context: {
        root: ws.dir,
        guard,
        checks,
        onWrite: async (rel, content) => {
          await locks.lockForWrite(guard.normalize(rel));
          const before = await readFile(await guard.resolveForWrite(rel), 'utf8').catch(() => undefined);
          if (content !== null) checkWrite(deps.scanner, rel, before, content);
          await lint?.beforeWrite(rel, before !== undefined);
        },
        ...(lint ? { lintFile: (rel: string) => lint.afterWrite(rel) } : {}),
      },
      baseline,
      budget,
      maxRepairs: deps.maxRepairs,
      editMode: deps.editMode,
      diff: () => workspace.diff(ws.dir, baseSha),
      changedFiles: () => workspace.changedFiles(ws.dir, baseSha),
      readFile: async (rel) => readFile(await guard.resolveForRead(rel), 'utf8').catch(() => undefined),
      transcript: new TranscriptWriter(artifactAppender(deps.artifacts, opId, TRANSCRIPT_ARTIFACT), redactor),
      shouldStop: cancelled,
      readInbox: async () => {
        const messages = await deps.inbox.drain(opId);
        for (const m of messages)
          await events.append(opId, 'message', { from: m.from, source: m.source, text: m.text });
        return messages.map((m) => redactor.redact(`${m.from} (${m.source}): ${m.text}`));
      },
      onStep: (step) => events.append(opId, step.kind, { ...step }).then(() => undefined),
      onPlan: async (planned) => {
        let plan = planned;
        if (needsPlanConfirmation(op)) {
          const waitStarted = Date.now();
          const outcome = await awaitPlanConfirmation({
            store,
            opId,
            plan: redactor.redactValue(planned),
            timeoutMs: deps.planConfirmationTimeoutMs ?? DEFAULT_PLAN_CONFIRMATION_TIMEOUT_MS,
          });
          confirmationWaitMs += Date.now() - waitStarted;
          if (!outcome.go) throw new StopOperation('cancelled', outcome.reason);
          plan = planWithNote(planned, outcome.confirmation);
        }
        const files = plan.steps
          .flatMap((st) => st.files)
          .flatMap((f) => {
            try {
              return [guard.normalize(f)];
            } catch {
              return []; // a path the guard refuses will be refused again at write time, with the rule
            }
          });
        await locks.lockDeclared(files, {
          shouldStop: stopIfCancelled,
          onWait: async (heldBy) => {
            const holder = heldBy[0]!.opId;
            const waiting = { files: heldBy.map((h) => h.path), holder, since: new Date().toISOString() };
            op = await store.patch(opId, { waiting }, { type: 'waiting', data: waiting });
          },
          onAcquired: async (waited) => {
            op = await store.update(
              opId,
              ({ waiting: _done, ...cur }) => ({ ...cur, updatedAt: new Date().toISOString() }),
              {
                type: 'locks_acquired',
                data: { files, waited },
              },
            );
          },
        });
        return plan;
      },
      onPhase: (phase, data) => events.append(opId, 'phase', { phase, ...data }).then(() => undefined),
      onUsage: usageRecorder(store, op, budget),
    });
    summary = redactor.redact(result.summary);
    op = await store.patch(
      opId,
      {
        ...(result.plan ? { plan: redactor.redactValue(result.plan) } : {}),
        ...(result.review ? { review: redactor.redactValue(result.review) } : {}),
        summary,
      },
      { type: 'step', data: { step: 'agent', state: 'finished', outcome: result.outcome, repairs: result.repairs } },
    );
    if (result.outcome !== 'ready')
      await stopForOutcome(result, redactor.redact.bind(redactor), () => keepWork(deps, op, ws.dir, baseSha));
    finalChecks = result.checks;
    op = await store.patch(
      opId,
      { checkpoints: withCheckpoint(op, 'agent_done') },
      { type: 'checkpoint', data: { step: 'agent_done' } },
    );
  }

  // verify: the checks as they ran last (or again, when a retried job resumes here)
  await stopIfCancelled();
  const filesChanged = await workspace.changedFiles(ws.dir, baseSha);
  if (filesChanged.length === 0) throw new StopOperation('failed', 'the model made no changes');
  await events.append(opId, 'step', { step: 'verify', state: 'started', files: filesChanged });
  if (!finalChecks) {
    finalChecks = [];
    for (const name of checks.names()) finalChecks.push(await checks.run(name));
  }
  const blocking = finalChecks.filter(
    (c) => newFailuresOf(c, baseline[c.name]) || ((op.type === 'fix' || op.type === 'debug') && !c.passed),
  );
  const checkResults = toCheckResults(finalChecks, blocking, redactor);
  op = await store.patch(
    opId,
    { filesChanged, checks: checkResults, checkpoints: withCheckpoint(op, 'verified') },
    { type: 'step', data: { step: 'verify', state: 'finished', passed: blocking.length === 0 } },
  );
  if (blocking[0]) throw new StopOperation('failed', checkFailureText(blocking[0], redactor));

  // gate: the whole diff is scanned for secrets; a finding or a scanner failure blocks the commit
  let findings: SecretFinding[];
  try {
    findings = deps.scanner.scanDiff(await workspace.diff(ws.dir, baseSha));
  } catch (err) {
    throw new StopOperation('failed', `commit blocked: ${(err as Error).message}`);
  }
  op = await store.patch(
    opId,
    { findings },
    { type: 'step', data: { step: 'secret_scan', findings: findings.length } },
  );
  if (findings.length > 0) {
    throw new StopOperation(
      'failed',
      `commit blocked: the change adds ${findings.length} secret(s): ${findings.map(describeFinding).join('; ')}`,
    );
  }

  if (op.type === 'debug') {
    const evidence = await redGreenEvidence({
      baseline: baseline.test,
      final: finalChecks.find((c) => c.name === 'test'),
      changedFiles: filesChanged,
      summary,
      worktree: ws.dir,
      runTestsOnBase: (copy) =>
        workspace.withTemporaryWorktree(op.repo, baseSha, async (dir) => {
          await copy(dir);
          return checksIn(dir, false).run('test');
        }),
    });
    op = await store.patch(opId, { evidence }, { type: 'evidence', data: { ...evidence } });
  }

  // publish
  await stopIfCancelled();
  const title = `${op.type}: ${op.description.split('\n')[0]!.slice(0, 72)}`;
  await workspace.commitAll(ws.dir, title, { 'Pullwright-Operation': opId });
  const headSha = await workspace.headSha(ws.dir);
  // Never overwrite someone else's push: the branch must be missing or an ancestor of ours.
  const remoteSha = await workspace.remoteBranchSha(ws.dir, branch, auth);
  if (remoteSha && !(await workspace.isAncestor(ws.dir, remoteSha, headSha))) {
    throw new StopOperation(
      'failed',
      `branch ${branch} on the forge has commits this operation did not make (${remoteSha.slice(0, 12)}); not overwriting them`,
    );
  }
  await workspace.push(ws.dir, branch, { ...(auth ? { auth } : {}), expectedRemoteSha: remoteSha ?? '' });
  op = await store.patch(
    opId,
    { headSha, checkpoints: withCheckpoint(withCommitted(op), 'pushed') },
    { type: 'step', data: { step: 'push', branch, headSha } },
  );
  const pr = await forge.openPullRequest({
    repo: op.repo,
    head: branch,
    base: op.baseBranch,
    title,
    body: publishedPullRequestBody(op, summary, headSha, redactor, deps.verificationKey),
  });
  await deps.branches.register(op.repo, branch, { opId, files: filesChanged, prNumber: pr.number });
  const overlaps = await liveOverlaps(deps, op.repo, filesChanged, branch);
  if (overlaps.length > 0) {
    op = await store.patch(
      opId,
      { overlaps },
      {
        type: 'overlap',
        data: { branches: overlaps.map((o) => o.branch), files: [...new Set(overlaps.flatMap((o) => o.files))] },
      },
    );
  }
  const opened = await store.transition(
    opId,
    'awaiting_approval',
    {
      pullRequest: { number: pr.number, url: pr.url, headSha: pr.headSha },
      headSha: pr.headSha,
      checkpoints: withCheckpoint(op, 'pr_opened'),
    },
    { pullRequest: pr.number, url: pr.url, headSha: pr.headSha },
  );
  await forge
    .upsertTrackingComment(op.repo, pr.number, trackingBody(opened, openedNote(opened)))
    .catch((err: unknown) => deps.logger.warn({ err: (err as Error).message, opId }, 'tracking comment update failed'));
  // Risk of the final diff, and an approval by policy where the rules allow one.
  return deps.approvalPolicy.afterPullRequest(opId, await workspace.diff(ws.dir, baseSha));
}

/** Other open branches touching the same files; entries of finished operations are dropped on the way. */
async function liveOverlaps(deps: PipelineDeps, repo: string, files: string[], branch: string) {
  const live = [];
  for (const o of await deps.branches.overlaps(repo, files, branch)) {
    const other = await deps.store.find(o.opId);
    if (!other || FINAL_STATUSES.has(other.status)) await deps.branches.drop(repo, o.branch);
    else live.push(o);
  }
  return live;
}

export function checkFailureText(run: CheckRun, redactor: { redact(s: string): string }): string {
  const why = run.timedOut ? 'timed out' : `exited with ${run.exitCode}`;
  return `check "${run.name}" ${why}:\n${redactor.redact(truncateOutput(run.output.trim(), 4000))}`;
}

/** Maps an unfinished agent run to the operation's end, with the reason a person needs. */
async function stopForOutcome(
  result: SolveResult,
  redact: (s: string) => string,
  keep: () => Promise<string | undefined>,
): Promise<never> {
  const reason = redact(result.reason ?? result.outcome);
  if (result.outcome === 'stopped') throw new StopOperation('cancelled', reason);
  const saved = result.outcome === 'budget' || result.outcome === 'stuck' ? await keep() : undefined;
  const kept = saved ? ` (the work so far is kept in ${saved})` : '';
  const failing = result.newFailures[0] ? `\n${checkFailureText(result.newFailures[0], { redact })}` : '';
  const label: Record<string, string> = {
    budget: 'budget exhausted',
    stuck: 'stuck',
    checks_failed: 'checks failed',
    review_rejected: 'review rejected the change',
    invalid_plan: 'invalid plan',
    invalid_review: 'invalid review',
    no_changes: 'no changes',
  };
  throw new StopOperation('failed', `${label[result.outcome] ?? result.outcome}: ${reason}${kept}${failing}`);
}

/** Saves the unpushed diff beside the transcripts, so work cut short by a budget is not lost. */
async function keepWork(deps: PipelineDeps, op: Operation, dir: string, baseSha: string): Promise<string | undefined> {
  const diff = await deps.workspace.diff(dir, baseSha);
  if (!diff.trim()) return undefined;
  const file = path.join(deps.transcriptsDir, `${op.id}.diff`);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, deps.redactor.redact(diff));
  return file;
}

function withCommitted(op: Operation): Operation {
  return { ...op, checkpoints: withCheckpoint(op, 'committed') };
}

function taskText(op: Operation): string {
  const parts = [`Request (${op.type}) for ${op.repo}, base branch ${op.baseBranch}:\n${op.description}`];
  const c = op.context;
  if (c.errorText) parts.push(`Error:\n${c.errorText}`);
  if (c.stack) parts.push(`Stack trace:\n${c.stack}`);
  if (c.logs) parts.push(`Logs:\n${c.logs}`);
  if (c.acceptance) parts.push(`Acceptance criteria:\n${c.acceptance}`);
  return parts.join('\n\n');
}
