import type { Logger, Operation, Plan } from '@pullwright/core';
import type { Forge } from '@pullwright/forge';
import type { Redactor } from '@pullwright/security';
import { quote } from './tracking-comment.ts';

/** The plan's summary and its steps, numbered. */
function planLines(plan: Plan | undefined): string[] {
  if (!plan) return [];
  return [`**Plan:** ${plan.summary}`, ...plan.steps.map((st, i) => `${i + 1}. ${st.title}`)];
}

/**
 * The one comment on the issue an operation came from: status, plan, progress, the PR, and
 * why it stopped. Rendered from the operation alone, so any process can rewrite it.
 */
export function issueTrackingBody(op: Operation, progress?: string): string {
  const lines = [`**Pullwright** · operation \`${op.id}\` (${op.type}) · ${op.status.replace(/_/g, ' ')}`];
  lines.push(...planLines(op.plan));
  if (progress && (op.status === 'queued' || op.status === 'running')) lines.push(`**Progress:** ${progress}`);
  if (op.pullRequest) lines.push(`**Pull request:** ${op.pullRequest.url} (#${op.pullRequest.number})`);
  if (op.error && (op.status === 'failed' || op.status === 'cancelled' || op.status === 'rejected'))
    lines.push(`**Why it stopped:**\n${quote(op.error)}`);
  return lines.join('\n\n');
}

interface IssueTrackingDeps {
  forge: Pick<Forge, 'upsertTrackingComment'>;
  redactor: Pick<Redactor, 'redact'>;
  logger: Logger;
}

/**
 * Brings the issue's tracking comment up to date (operations that came from an issue only).
 * A failed update is logged, never fatal: the operation's own record is the truth.
 */
export async function syncIssueTracking(
  deps: IssueTrackingDeps,
  op: Operation,
  progress?: string,
  note?: string,
): Promise<void> {
  if (op.origin?.kind !== 'issue') return;
  const body = [issueTrackingBody(op, progress), ...(note ? [note] : [])].join('\n\n');
  await deps.forge
    .upsertTrackingComment(op.origin.repo, op.origin.number, deps.redactor.redact(body))
    .catch((err: unknown) =>
      deps.logger.warn({ opId: op.id, err: (err as Error).message }, 'issue tracking comment update failed'),
    );
}
