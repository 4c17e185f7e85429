import type { OperationEvent } from '@pullwright/core';
import { isTransientError, type Operation } from '@pullwright/core';
import type { CheckRun } from '@pullwright/forge';
import type { JobData, ReviewFeedback } from '@pullwright/queue';
import type { PipelineDeps } from '../frame/pipeline-deps.ts';
import type { OperationActions } from '../intake/operation-actions.ts';
import { syncIssueTracking } from '../tracking/issue-tracking.ts';
import { updateTrackingComment } from '../tracking/tracking-comment.ts';

/** Conclusions that mean the check found a problem (not `cancelled`, `skipped` or `neutral`). */
const FAILED = new Set(['failure', 'timed_out', 'startup_failure']);
/** What of a failing check reaches the model: enough to see the failure, not a whole log. */
const SUMMARY_CHARS = 2000;
const ANNOTATION_LINES = 20;
const LOG_LINES = 80;
const LOG_CHARS = 6000;
/** The revise job of a CI failure is named after the head it answers: `ci-<sha>`. */
const CI_REQUEST = /^ci-([0-9a-f]{40})$/;

const failed = (r: CheckRun) => r.status === 'completed' && FAILED.has(r.conclusion ?? '');

/**
 * How many CI revisions in a row produced `headSha`: each pushed revision named `ci-<sha>`
 * that made this head counts, then the head it revised, and so on back to a head a person
 * or the first run made. The limit is on this chain, so a person's push starts it again.
 */
export function ciAttemptsBehind(events: OperationEvent[], headSha: string): number {
  const pushed = events.filter((e) => e.type === 'revision' && e.data.state === 'pushed' && e.data.changed !== false);
  const seen = new Set<string>();
  let head = headSha;
  let count = 0;
  while (!seen.has(head)) {
    seen.add(head);
    const made = pushed.find((e) => e.data.headSha === head && CI_REQUEST.test(String(e.data.requestId)));
    if (!made) break;
    count++;
    head = CI_REQUEST.exec(String(made.data.requestId))![1]!;
  }
  return count;
}

/** The end of a log: its last lines, within a character budget. */
function logTail(log: string): string {
  const tail = log.trimEnd().split('\n').slice(-LOG_LINES).join('\n');
  return tail.length > LOG_CHARS ? tail.slice(-LOG_CHARS) : tail;
}

async function feedbackFor(
  deps: PipelineDeps,
  repo: string,
  run: CheckRun,
): Promise<{ feedback: ReviewFeedback; missingPermissions: string[] }> {
  const details = await deps.forge.checkRunDetails(repo, run.id);
  const parts = [`Check "${run.name}" concluded ${run.conclusion}.`];
  if (run.title) parts.push(`Title: ${run.title}`);
  if (run.summary) parts.push(`Summary:\n${run.summary.slice(0, SUMMARY_CHARS)}`);
  if (details.annotations.length > 0)
    parts.push(`Annotations:\n${details.annotations.slice(0, ANNOTATION_LINES).join('\n')}`);
  if (details.log) parts.push(`End of the log:\n${logTail(details.log)}`);
  // The log is CI output: it may echo a secret the CI had; nothing unredacted reaches the model.
  const body = deps.redactor.redact(parts.join('\n\n')).slice(0, 20_000);
  return {
    feedback: { id: run.id, kind: 'check_run', user: 'ci', body },
    missingPermissions: details.missingPermissions ?? [],
  };
}

/**
 * What the installation's missing permissions left out of this look, said once per operation:
 * the first red CI that lacked something names it (on the event and the tracking comment), later ones do not.
 */
async function permissionNote(
  deps: PipelineDeps,
  opId: string,
  missing: readonly string[],
): Promise<{ missingPermissions?: string[]; sentence: string }> {
  if (missing.length === 0) return { sentence: '' };
  const said = (await allEvents(deps, opId)).some((e) => e.type === 'ci_failure' && e.data.missingPermissions);
  if (said) return { sentence: '' };
  const names = [...new Set(missing)].sort();
  return {
    missingPermissions: names,
    sentence: ` The CI job logs were not read: the GitHub App's installation has not granted ${names.join(', ')} (its owner accepts the app's updated permissions in the installation settings); the revision works from the check summaries and annotations.`,
  };
}

async function allEvents(deps: PipelineDeps, opId: string): Promise<OperationEvent[]> {
  const out: OperationEvent[] = [];
  for (let after = '-'; ; ) {
    const page = await deps.events.list(opId, after, 1000);
    out.push(...page);
    if (page.length < 1000) return out;
    after = page.at(-1)!.id;
  }
}

/** Tells the PR (and the issue, and through the event Slack) what CI did to the operation. */
async function tell(deps: PipelineDeps, op: Operation, note: string): Promise<void> {
  await updateTrackingComment(deps, op, note, deps.logger);
  await syncIssueTracking(deps, op, undefined, note);
}

/**
 * The `ci_failure` job, after the settle delay: reads the head's check runs, leaves out
 * those failing on the base too (pre-existing), and asks for a revision with the rest as
 * feedback, up to the policy's attempts; then a person is asked instead. Returns what it did.
 */
export async function handleCiFailure(
  job: JobData<'ci_failure'>,
  deps: PipelineDeps & { actions: OperationActions },
): Promise<string> {
  try {
    const outcome = await lookAtFailure(job, deps);
    deps.logger.info({ opId: job.opId, headSha: job.headSha, outcome }, 'red CI looked at');
    return outcome;
  } catch (err) {
    // Redis away: the job runs again. Anything else ends this look only, never the operation.
    if (isTransientError(err)) throw err;
    const reason = deps.redactor.redact((err as Error)?.message ?? String(err));
    deps.logger.warn({ opId: job.opId, err: reason }, 'red CI could not be read');
    await deps.events.append(job.opId, 'ci_failure', { headSha: job.headSha, state: 'unreadable', reason });
    return `not handled: ${reason}`;
  }
}

async function lookAtFailure(job: JobData<'ci_failure'>, deps: PipelineDeps & { actions: OperationActions }) {
  const op = await deps.store.find(job.opId);
  const pr = op?.pullRequest;
  if (!op || !pr) return 'ignored: no pull request';
  if (pr.headSha !== job.headSha) return 'ignored: the head moved since';
  if (op.status !== 'awaiting_approval' && op.status !== 'approved') return `ignored: operation is ${op.status}`;
  const failing = (await deps.forge.listCheckRuns(op.repo, job.headSha)).filter(failed);
  if (failing.length === 0) return 'ignored: no check is failing any more';
  const baseSha = (await deps.forge.getPullRequest(op.repo, pr.number)).baseSha ?? op.baseSha;
  const onBase = new Set(
    baseSha ? (await deps.forge.listCheckRuns(op.repo, baseSha)).filter(failed).map((r) => r.name) : [],
  );
  const fresh = failing.filter((r) => !onBase.has(r.name));
  const preExisting = failing.filter((r) => onBase.has(r.name)).map((r) => r.name);
  const checks = fresh.map((r) => r.name);
  const common = { headSha: job.headSha, checks, preExisting, ...(job.runUrl ? { runUrl: job.runUrl } : {}) };
  if (fresh.length === 0) {
    await deps.events.append(op.id, 'ci_failure', { ...common, state: 'pre_existing' });
    return `ignored: ${preExisting.join(', ')} fail on the base too`;
  }
  const { max_attempts: max } = deps.approvalPolicy.policyOf(op).triggers.ci;
  const attempts = ciAttemptsBehind(await allEvents(deps, op.id), job.headSha);
  const short = job.headSha.slice(0, 7);
  if (attempts >= max) {
    await deps.events.append(op.id, 'ci_failure', { ...common, state: 'needs_human', attempts });
    await tell(
      deps,
      op,
      `CI is red on \`${short}\` (${checks.join(', ')}) after ${attempts} automatic revision(s): this needs a person.${job.runUrl ? ` CI run: ${job.runUrl}` : ''}`,
    );
    return 'needs a human';
  }
  const looked = await Promise.all(fresh.map((r) => feedbackFor(deps, op.repo, r)));
  const permissions = await permissionNote(
    deps,
    op.id,
    looked.flatMap((l) => l.missingPermissions),
  );
  await deps.actions.reviseForFailedChecks(op.id, {
    requestId: `ci-${job.headSha}`,
    feedback: looked.map((l) => l.feedback),
  });
  await deps.events.append(op.id, 'ci_failure', {
    ...common,
    state: 'revision_queued',
    attempt: attempts + 1,
    of: max,
    ...(permissions.missingPermissions ? { missingPermissions: permissions.missingPermissions } : {}),
  });
  await tell(
    deps,
    op,
    `CI is red on \`${short}\` (${checks.join(', ')}): revising, attempt ${attempts + 1} of ${max}.${permissions.sentence}`,
  );
  return `revision queued (attempt ${attempts + 1} of ${max})`;
}
