import { type CheckRun, truncateOutput } from '@pullwright/agent';
import type { CheckResult, CommitSignature, Operation } from '@pullwright/core';
import { parseRepoPolicy } from '@pullwright/policy';
import type { GitAuth } from '@pullwright/security';
import { describeOutboundFinding } from '@pullwright/security';
import { type GitClient, gitClient, isAncestor } from '@pullwright/workspace';
import { tokenHolder } from '../budget/operation-accounting.ts';
import { detectRepoCommands, RepoChecks, type RepoCommands } from '../checks/repo-checks.ts';
import type { PipelineDeps } from '../frame/pipeline-deps.ts';
import { StopOperation } from '../frame/stop-operation.ts';
import { type PublishedCommits, publishCommits } from '../gates/publish-commits.ts';
import { scanPush } from '../gates/scanned-push.ts';
import { checkEvent } from '../steps/check-events.ts';
import { installDependencies, operationEgress } from '../work/install-dependencies.ts';

type MergeTrainDeps = Pick<
  PipelineDeps,
  'forge' | 'workspace' | 'runner' | 'checkTimeoutMs' | 'redactor' | 'events' | 'checkResults' | 'egress' | 'scanner'
>;

/** What bringing an approved branch up to date with its base came to. */
export type MergeTrainResult =
  /** The branch already contains the base: merge the approved sha as it is. */
  | { kind: 'current' }
  /** The base was merged into the branch, the checks passed on the result, and it was pushed. */
  | { kind: 'updated'; headSha: string; baseSha: string; checks: CheckRun[]; signature?: CommitSignature }
  /**
   * The base conflicts with the branch. A merge taking the base's version of the conflicting
   * files was pushed (so the next merge cannot conflict again); the change to those files
   * must be redone on top of it, by a revision.
   */
  | { kind: 'conflict'; headSha: string; baseSha: string; files: string[]; task: string }
  /** The checks fail on the merged result; nothing was pushed. */
  | { kind: 'checks_failed'; baseSha: string; reason: string };

/** Marks the commits the train writes; the binding rule only trusts merges it can recompute. */
const BASE_MERGE_TRAILER = 'Pullwright-Base-Merge';

/**
 * The merge train's update step, run under the repository's merge lock: fetch the base; if
 * the approved head does not contain it, merge the base into the branch (a merge, not a
 * rebase: the approved commits keep their shas), run the repository's checks on the result
 * in the sandbox, and publish it without force (signed through the forge's API where it can). The caller merges the new head only because
 * `isBaseMergeOf` proves it differs from the approved sha by the base merge alone.
 */
export async function updateFromBase(
  op: Operation,
  approvedSha: string,
  deps: MergeTrainDeps,
): Promise<MergeTrainResult> {
  const branch = op.branch;
  if (!branch) return { kind: 'current' };
  const auth = await deps.forge.gitAuth(op.repo, tokenHolder(op.id, 'merge'));
  const mirror = await deps.workspace.syncMirror(op.repo, deps.forge.cloneUrl(op.repo), auth);
  const git = gitClient(mirror);
  const baseSha = await revParse(git, `refs/remotes/origin/${op.baseBranch}`);
  const remoteHead = await revParse(git, `refs/remotes/origin/${branch}`).catch(() => undefined);
  if (!baseSha || !remoteHead || (await isAncestor(git, baseSha, approvedSha))) return { kind: 'current' };
  // A head that is not the approved one is the forge's business (it refuses the merge),
  // unless it is this train's own update, pushed by an attempt that stopped before merging.
  let candidate: string | undefined;
  if (remoteHead !== approvedSha) {
    const parents = await parentsOf(git, remoteHead);
    if (parents[1] && (await isBaseMergeOf(git, approvedSha, remoteHead, parents[1]))) candidate = remoteHead;
    else return { kind: 'current' };
  }
  await deps.events.append(op.id, 'step', { step: 'base_merge', state: 'started', approvedSha, baseSha });

  return deps.workspace.withTemporaryWorktree(op.repo, candidate ?? approvedSha, async (dir) => {
    const wt = gitClient(dir);
    let headSha = candidate;
    if (!headSha) {
      const message = `Merge ${op.baseBranch} into ${branch}\n\nPullwright-Operation: ${op.id}\n${BASE_MERGE_TRAILER}: ${baseSha}`;
      // Judged by the result: a conflicted merge exits non-zero and leaves HEAD where it was.
      await wt.raw(['merge', '--no-ff', '--no-edit', '-m', message, baseSha]).catch(() => undefined);
      headSha = await revParse(wt, 'HEAD');
      if (headSha === approvedSha) return resolveConflict(op, branch, approvedSha, baseSha, dir, deps, auth);
      if (!headSha || !(await isBaseMergeOf(git, approvedSha, headSha, baseSha)))
        return { kind: 'checks_failed', baseSha, reason: 'the base merge could not be verified' };
    }
    const checked = await runChecks(op, dir, deps);
    if ('reason' in checked) return { kind: 'checks_failed', baseSha, reason: checked.reason };
    if (headSha === remoteHead) return { kind: 'updated', headSha, baseSha, checks: checked.runs };
    const published = await publishBaseMerge(op, { dir, branch, auth, headSha, approvedSha, baseSha }, deps);
    return {
      kind: 'updated',
      headSha: published.headSha,
      baseSha,
      checks: checked.runs,
      signature: published.signature,
    };
  });
}

/**
 * The binding rule: `head` may be merged on an approval of `approvedSha` only when it is a
 * merge of `approvedSha` with a commit of the base and its tree is exactly what git's own
 * merge of the two gives. Then nothing but the base's changes came in since the approval.
 */
export async function isBaseMergeOf(
  git: GitClient,
  approvedSha: string,
  head: string,
  baseSha: string,
): Promise<boolean> {
  const parents = await parentsOf(git, head);
  if (parents.length !== 2 || parents[0] !== approvedSha || parents[1] !== baseSha) return false;
  // A clean merge prints its tree and nothing else; a conflicted one adds the conflicts.
  const out = await git.raw(['merge-tree', '--write-tree', approvedSha, baseSha]).catch(() => '');
  const lines = out.trim().split('\n');
  if (lines.length !== 1 || !lines[0]) return false;
  return lines[0].trim() === (await revParse(git, `${head}^{tree}`));
}

/** Install (the one networked step) and every check, as the approved base configured them. */
async function runChecks(
  op: Operation,
  dir: string,
  deps: MergeTrainDeps,
): Promise<{ runs: CheckRun[] } | { reason: string }> {
  let commands: RepoCommands;
  try {
    const read = (file: string) => deps.workspace.readAt(op.repo, op.baseSha ?? 'HEAD', file);
    const text = await read('.pullwright.yml');
    commands = await detectRepoCommands(
      text === undefined ? undefined : parseRepoPolicy(text),
      read,
      deps.checkTimeoutMs,
    );
    await installDependencies(
      deps.runner,
      commands.install,
      dir,
      deps.redactor,
      operationEgress(deps, op.id, 'base_merge'),
    );
  } catch (err) {
    return { reason: (err as Error).message };
  }
  const checks = new RepoChecks(dir, commands, deps.runner, {
    onRun: checkEvent(deps.events, op.id, { step: 'base_merge' }),
    cache: { results: deps.checkResults, repo: op.repo },
  });
  const runs: CheckRun[] = [];
  for (const name of checks.names()) {
    const run = await checks.run(name);
    runs.push(run);
    if (!run.passed && !toleratedFailure(op.checks, run)) {
      const why = run.timedOut ? 'timed out' : `exited with ${run.exitCode}`;
      return { reason: `check "${run.name}" ${why}:\n${clip(run.output, deps)}` };
    }
  }
  return { runs };
}

/**
 * A check that already failed on the base when the change was approved (and was accepted as
 * pre-existing) may fail the same way now; anything else that fails blocks the merge.
 */
function toleratedFailure(approved: CheckResult[], run: CheckRun): boolean {
  const before = approved.find((c) => c.name === run.name);
  if (!before || before.passed || !before.preExisting) return false;
  return run.failingTests.every((t) => before.failingTests.includes(t)) && run.failingTests.length > 0;
}

/**
 * Takes the base's version of each conflicting file (never conflict markers: the branch must
 * stay buildable and reviewable), commits the merge and pushes it, and describes what the
 * revision must redo: the branch's own change to those files, as approved.
 */
async function resolveConflict(
  op: Operation,
  branch: string,
  approvedSha: string,
  baseSha: string,
  dir: string,
  deps: MergeTrainDeps,
  auth: GitAuth | undefined,
): Promise<MergeTrainResult> {
  const wt = gitClient(dir);
  // `-z`: names as they are, not C-quoted (see WorkspaceManager.changedFiles).
  const files = (await wt.raw(['diff', '--name-only', '-z', '--diff-filter=U'])).split('\0').filter(Boolean).sort();
  for (const file of files) {
    const inBase = (await wt.raw(['ls-tree', '--name-only', baseSha, '--', file])).trim();
    if (inBase) await wt.raw(['checkout', '--theirs', '--', file]);
    else await wt.raw(['rm', '-q', '--force', '--', file]);
  }
  await wt.raw(['add', '--all']);
  const message = [
    `Merge ${op.baseBranch} into ${branch} (conflicts: base version taken)`,
    '',
    `Conflicting files: ${files.join(', ')}`,
    '',
    `Pullwright-Operation: ${op.id}`,
    `${BASE_MERGE_TRAILER}: ${baseSha}`,
  ].join('\n');
  await wt.raw(['commit', '--no-verify', '--no-edit', '-m', message]);
  const headSha = await revParse(wt, 'HEAD');
  const base = (await wt.raw(['merge-base', approvedSha, baseSha])).trim();
  const ours = await wt.raw(['diff', '--no-color', '--no-ext-diff', base, approvedSha, '--', ...files]);
  const theirs = await wt.raw(['log', '--format=%h %s', `${base}..${baseSha}`, '--', ...files]);
  const published = await publishBaseMerge(op, { dir, branch, auth, headSha: headSha!, approvedSha, baseSha }, deps);
  const task = [
    `Merging the approved change into ${op.baseBranch} conflicted in: ${files.map((f) => `\`${f}\``).join(', ')}.`,
    `The branch now merges ${op.baseBranch} (${baseSha.slice(0, 12)}), with the base's version of those files. Your change to them was dropped; redo its intent on top of the new content and keep every check passing.`,
    `Commits on ${op.baseBranch} that changed them:\n${theirs.trim() || '(none listed)'}`,
    `Your approved change to those files:\n\`\`\`diff\n${truncateOutput(ours.trim(), 12_000)}\n\`\`\``,
  ].join('\n\n');
  return { kind: 'conflict', headSha: published.headSha, baseSha, files, task: deps.redactor.redact(task) };
}

/**
 * The train's merge commit onto the branch at `approvedSha`, without force: through the forge's
 * API where it signs commits, else pushed (see `publishCommits`); the operation's events say which.
 * It passes the publish gate's secret scan first, as every push does: its message names the
 * branches and the conflicting files, and only what neither parent holds counts as added.
 */
async function publishBaseMerge(
  op: Operation,
  merge: {
    dir: string;
    branch: string;
    auth: GitAuth | undefined;
    headSha: string;
    approvedSha: string;
    baseSha: string;
  },
  deps: MergeTrainDeps,
): Promise<PublishedCommits> {
  const scan = await scanPush(deps.scanner, merge.dir, {
    branch: merge.branch,
    headSha: merge.headSha,
    since: [merge.approvedSha, merge.baseSha],
  }).catch((err: Error) => {
    throw new StopOperation({ code: 'secret_found', detail: `the secret scan failed: ${err.message}` });
  });
  if (!scan.clearance) {
    const added = scan.findings.filter((f) => !f.preExisting);
    throw new StopOperation({
      code: scan.gitlinks.length > 0 ? 'path_refused' : 'secret_found',
      detail:
        scan.gitlinks.length > 0
          ? `the base merge adds a nested git repository (gitlink) at ${scan.gitlinks.join(', ')}; nested repositories are never published`
          : `the base merge adds ${added.length} secret(s): ${added.map(describeOutboundFinding).join('; ')}; the branch is unchanged`,
    });
  }
  const published = await publishCommits(deps, {
    repo: op.repo,
    dir: merge.dir,
    auth: merge.auth,
    expectedRemoteSha: merge.approvedSha,
    scanned: scan.clearance,
  });
  await deps.events.append(op.id, 'commit_signature', { ...published.signature, headSha: published.headSha });
  return published;
}

function clip(output: string, deps: MergeTrainDeps): string {
  return deps.redactor.redact(truncateOutput(output.trim(), 4000));
}

async function revParse(git: GitClient, ref: string): Promise<string | undefined> {
  const out = await git.raw(['rev-parse', '--verify', '--quiet', ref]).catch(() => '');
  return out.trim() || undefined;
}

async function parentsOf(git: GitClient, sha: string): Promise<string[]> {
  return (await git.raw(['rev-list', '--parents', '-n', '1', sha])).trim().split(/\s+/).slice(1);
}
