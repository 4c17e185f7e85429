import { existsSync } from 'node:fs';
import path from 'node:path';
import { branchNameFor, isPullwrightError, outcomeOfError, type Policy, type StepFacts } from '@pullwright/core';
import { parseRepoPolicy, resolveMcpServers } from '@pullwright/policy';
import { gitClient, type PreparedWorkspace } from '@pullwright/workspace';
import { dailyCapRefusal } from '../budget/daily-cap-refusal.ts';
import { operationBudget } from '../budget/operation-accounting.ts';
import { spendEstimate } from '../budget/spend-estimate.ts';
import { detectRepoCommands, RepoChecks } from '../checks/repo-checks.ts';
import type { Step } from '../frame/job-frame.ts';
import { StopOperation } from '../frame/stop-operation.ts';
import { WorkspaceGate } from '../gates/workspace-gate.ts';
import { readRepositoryInstructions } from '../model-context/read-repository-instructions.ts';
import { RunRecord } from '../work/run-record.ts';
import { TreeDependencies } from '../work/tree-dependencies.ts';
import type { WorkContext } from '../work/work-context.ts';
import { BaseCommitTree } from './base-commit-tree.ts';
import { checkEvent } from './check-events.ts';

/**
 * Where a job's change starts: a run's at the base commit, on a branch it names; a revision's
 * at the pull request's head, the forge's head of the operation's branch (whoever pushed last).
 */
type WorkStart = 'base' | 'pull-request-head';

/**
 * prepare: the mirror fetched once, the policy fixed at claim from the base commit's
 * `.pullwright.yml` (a change the model makes cannot loosen the rules its own PR is judged
 * by), the branch named with the policy's prefix, a worktree on it (a run's own, resumed
 * when retried; a revision's fresh at the forge's head of the branch, whoever pushed last),
 * the install/check commands read from the base commit, the workspace gate and the budget.
 * Everything it reads comes from the mirror's git objects, so a new run's worktree is checked
 * out beside the model's first turn (issue 29): the gate's tools and the install wait for it.
 */
export function prepareStep(start: WorkStart): Step<WorkContext> {
  return { name: 'prepare', run: (ctx) => prepare(ctx, start) };
}

async function prepare(ctx: WorkContext, start: WorkStart): Promise<StepFacts> {
  const { deps } = ctx;
  const { workspace, forge } = deps;
  const repo = ctx.op.repo;
  // An evaluation attempt's worktree holds its base alone, but the worker's disk holds the
  // mirror and its later history: code the model writes must not run where it can read it.
  if (ctx.op.eval && !deps.runner.sandboxed)
    throw new StopOperation({
      code: 'misconfigured',
      detail:
        'an evaluation attempt needs the sandbox: under SANDBOX=none the code it runs could read the history that followed its base; set SANDBOX=bubblewrap or docker',
    });
  // A token of this job's own (GitHub: scoped to this repository), revoked when the job ends.
  const auth = await forge.gitAuth(repo, ctx.tokenHolder);
  const cloneUrl = forge.cloneUrl(repo);
  // A run's first attempt may start from a fetch made after its request (by a busy worker
  // while the job waited: MirrorPrefetch). A retry or a revision fetches now: the forge may
  // hold pushes made since the operation was created (an earlier attempt on another worker,
  // a reviewer's commit, a moved base).
  const firstRun = start === 'base' && !ctx.op.branch;
  const fetched = await workspace.syncMirrorSince(
    repo,
    cloneUrl,
    auth,
    firstRun ? Date.parse(ctx.op.createdAt) : Number.POSITIVE_INFINITY,
  );
  const baseSha = ctx.op.baseSha ?? (await workspace.branchSha(repo, ctx.op.baseBranch));
  if (!baseSha)
    throw new StopOperation({
      code: 'not_found',
      detail: `base branch ${ctx.op.baseBranch} does not exist in ${repo}`,
    });
  // The base commit from git objects: its tree listed once (manifests, instruction files, the
  // first turn's repository map), beside the base files every job reads, in one git call.
  // The one parse of the base commit's .pullwright.yml: the policy and the check commands.
  const base = new BaseCommitTree(workspace, repo, baseSha);
  const first: readonly string[] = ['.pullwright.yml', 'package.json', 'package-lock.json'];
  const [texts] = await Promise.all([workspace.readManyAt(repo, baseSha, first), base.files()]);
  const [fileText] = texts;
  // The check commands' manifests: the first three from that call, any other from the tree.
  const baseFile = (file: string) =>
    first.includes(file) ? Promise.resolve(texts[first.indexOf(file)]) : base.read(file);
  const repoFile = fileText === undefined ? undefined : parseRepoPolicy(fileText);
  if (!ctx.op.policy) ctx.op = await deps.approvalPolicy.atClaim(ctx.opId, repoFile);
  const policy = deps.approvalPolicy.policyOf(ctx.op);
  // issue 32: refused at the door once a daily cap is spent (runs, revisions, red-CI retries).
  const refused = dailyCapRefusal(await deps.dailySpend.spent(repo), policy.budgets);
  if (refused) throw new StopOperation(refused);
  if (start === 'base' && ctx.op.budgetContract?.estimateUsd === undefined) await recordEstimate(ctx, policy.budgets);

  const branch = ctx.op.branch ?? (start === 'base' ? branchNameFor(ctx.op, policy.branches.prefix) : undefined);
  if (!branch) throw new StopOperation({ code: 'not_found', detail: 'nothing to revise: the operation has no branch' });
  // A revision starts at the forge's head of the branch, whoever pushed last.
  const head = start === 'pull-request-head' ? await workspace.branchSha(repo, branch) : undefined;
  if (start === 'pull-request-head' && !head)
    throw new StopOperation({
      code: 'not_found',
      detail: `branch ${branch} is gone from the forge: nothing to revise`,
    });
  const keepsWork = head !== undefined && (await revisionContinues(ctx, head));
  if (head && !keepsWork) {
    await workspace.remove(ctx.worktreeId, repo);
    await deps.conversations.for(ctx.opId, ctx.conversation).clear();
  }
  // A new run's worktree is checked out beside the model's first turn, which reads the base
  // commit from git objects (issue 29); a retried run or a revision continues in a worktree
  // that may hold work, so it is ready before anything reads it.
  const beside =
    start === 'base' && !ctx.op.branch && !existsSync(path.join(workspace.worktreeDir(ctx.worktreeId), '.git'));
  const prepared = workspace.prepare({
    opId: ctx.worktreeId,
    repo,
    cloneUrl,
    baseBranch: ctx.op.baseBranch,
    branch,
    fetch: false,
    baseSha,
    ...(ctx.op.eval ? { baseOnly: true } : {}),
    ...(auth ? { auth } : {}),
  });
  const ws: PreparedWorkspace = beside
    ? { dir: workspace.worktreeDir(ctx.worktreeId), branch, baseSha, resumed: false }
    : await prepared;
  if (head && !keepsWork) await gitClient(ws.dir).raw(['reset', '--quiet', '--hard', head]);
  // The job ends at the first waiter when the checkout failed, as it did in this step before.
  const checkedOut = prepared.then(
    () => undefined,
    (err: unknown) => {
      throw new StopOperation(
        isPullwrightError(err)
          ? outcomeOfError(err.code, err.message)
          : { code: 'internal', detail: `worktree checkout failed: ${(err as Error)?.message ?? String(err)}` },
      );
    },
  );
  checkedOut.catch(() => undefined);
  const startSha = head ?? baseSha;

  const commands = await detectRepoCommands(repoFile, baseFile, deps.checkTimeoutMs);
  if (!commands.checks.test)
    throw new StopOperation({
      code: 'misconfigured',
      detail: 'no test command found: add checks.test to .pullwright.yml or a "test" script to package.json',
    });
  const record = await RunRecord.open(deps.artifacts, ctx.opId, deps.redactor);
  // issue 31: what the model knows — the base commit's instruction files, and the MCP servers.
  const mcpServers = resolveMcpServers(deps.approvalPolicy.service, repoFile);
  const instructions = await readRepositoryInstructions(
    { listFilesAt: () => base.files(), readManyAt: (_repo, _sha, files) => base.readMany(files) },
    repo,
    baseSha,
    repoFile,
  );
  await record.instructions(instructions);
  if (start === 'base' && (instructions.files.length > 0 || instructions.skipped.length > 0))
    await deps.events.append(ctx.opId, 'instructions', {
      files: instructions.files.map((f) => ({ path: f.path, kind: f.kind, tokens: f.tokens })),
      skipped: [...instructions.skipped],
    });
  const reportCheck = checkEvent(deps.events, ctx.opId);
  // Installed beside the model (the install step): the worktree's commands wait for it.
  const dependencies = new TreeDependencies(deps.dependencies);
  const runner = dependencies.runner(deps.runner);
  // The worker's results by tree: the baseline's run answers the model's first run on the
  // untouched base, and the model's last run answers the verification of the same tree.
  const checks = new RepoChecks(ws.dir, commands, runner, {
    onRun: async (run) => {
      await record.checkRun(run);
      await reportCheck(run);
    },
    cache: { results: deps.checkResults, repo },
  });
  const gate = new WorkspaceGate({
    root: ws.dir,
    policy,
    scanner: deps.scanner,
    locks: ctx.locks,
    checks,
    runner,
    lintFile: commands.lintFile,
    repoMapTokens: deps.repoMapTokens,
    fileOpsPerMinute: deps.fileOpsPerMinute,
    installed: () => dependencies.ready(),
    checkedOut: () => checkedOut,
    ...(beside ? { checkoutOf: base } : {}),
  });
  const budget = operationBudget(deps, ctx.op, policy.budgets, () => Date.now() - ctx.confirmationWaitMs);
  ctx.work = {
    ws,
    checkedOut,
    branch,
    auth,
    baseSha,
    startSha,
    commands,
    dependencies,
    checks,
    gate,
    budget,
    record,
    instructions,
    mcpServers,
  };
  ctx.locks.keep();
  const sandbox = { runner: deps.runner.name, sandboxed: deps.runner.sandboxed };
  if (!sandbox.sandboxed || ctx.op.sandbox?.runner !== sandbox.runner)
    ctx.op = await deps.store.patch(
      ctx.opId,
      { sandbox },
      {
        type: 'sandbox',
        data: {
          ...sandbox,
          ...(sandbox.sandboxed
            ? {}
            : { warning: 'SANDBOX=none: the repository code of this operation runs without a sandbox' }),
        },
      },
    );
  if (start === 'base')
    ctx.op = await deps.store.patch(
      ctx.opId,
      { branch, baseSha },
      { type: 'checkpoint', data: { step: 'branch', branch, baseSha } },
    );
  return {
    branch,
    baseSha,
    startSha,
    resumed: ws.resumed,
    // The worktree's checkout, still running.
    ...(beside ? { beside: 'the model' } : {}),
    fetched,
    checks: Object.keys(commands.checks),
  };
}

/** The spend estimate on the operation and in its events (dashboard, Slack), beside the cost budget it runs under. */
async function recordEstimate(ctx: WorkContext, budgets: Policy['budgets']): Promise<void> {
  const { deps } = ctx;
  const estimate = await spendEstimate(deps.store, ctx.op, budgets);
  if (!estimate) return;
  const limitUsd = operationBudget(deps, ctx.op, budgets).limits.costUsd;
  ctx.op = await deps.store.update(
    ctx.opId,
    (cur) => ({
      ...cur,
      budgetContract: { extendedUsd: 0, ...cur.budgetContract, ...estimate },
      updatedAt: new Date().toISOString(),
    }),
    {
      type: 'budget_estimate',
      data: {
        estimateUsd: estimate.estimateUsd,
        basis: estimate.estimateBasis,
        samples: estimate.estimateSamples,
        limitUsd,
      },
    },
  );
}

/**
 * Whether a retried revision continues in the worktree its earlier attempt left: still on the
 * forge's head (nobody pushed since) and with that attempt's solve journal, whose recorded
 * turns made the worktree's uncommitted changes. Otherwise it starts afresh, journal and all.
 */
async function revisionContinues(ctx: WorkContext, head: string): Promise<boolean> {
  const { deps } = ctx;
  const dir = deps.workspace.worktreeDir(ctx.worktreeId);
  if (!existsSync(path.join(dir, '.git'))) return false;
  const at = await gitClient(dir)
    .raw(['rev-parse', 'HEAD'])
    .then((out) => out.trim())
    .catch(() => undefined);
  return at === head && (await deps.conversations.for(ctx.opId, ctx.conversation).load()) !== undefined;
}
