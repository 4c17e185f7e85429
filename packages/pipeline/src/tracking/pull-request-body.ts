import type { CommitSignature, Operation } from '@pullwright/core';
import type { Redactor } from '@pullwright/security';
import { evidenceMarkdown } from '../checks/red-green.ts';
import { signVerification, verificationBlockOf } from './verification-block.ts';

/** The PR description: what was asked, what changed, what was checked. Redacted by the caller. */
export function pullRequestBody(op: Operation, summary: string): string {
  const checks = op.checks.length
    ? op.checks
        .map((c) => `| ${c.name} | \`${c.command}\` | ${c.passed ? 'pass' : 'FAIL'} | ${c.durationMs} ms |`)
        .join('\n')
    : '| (none) | | | |';
  const files = op.filesChanged.map((f) => `- \`${f}\``).join('\n');
  return [
    `## Request\n${op.description}`,
    `## Summary\n${summary || '(no summary)'}`,
    `## Files changed\n${files}`,
    ...(op.evidence ? [`## Evidence\n${evidenceMarkdown(op.evidence)}`] : []),
    `## Checks\n| check | command | result | time |\n|---|---|---|---|\n${checks}`,
    `Requested by ${op.requester.user} via ${op.requester.source}. Operation \`${op.id}\`.`,
    // GitHub closes the issue the work came from when this merges.
    ...(op.origin?.kind === 'issue' ? [`Fixes #${op.origin.number}`] : []),
    ...(op.commitSignature && (op.commitSignature.state === 'forge' || op.commitSignature.reason)
      ? [commitSignatureLine(op.commitSignature)]
      : []),
    ...(op.sandbox && !op.sandbox.sandboxed
      ? ['**Warning:** the checks of this change ran without a sandbox (`SANDBOX=none`).']
      : []),
  ].join('\n\n');
}

/**
 * Whether a reviewer (and a branch rule requiring signed commits) will find the commits signed;
 * said where the forge signs (GitHub), not on the local forge, which never does.
 */
function commitSignatureLine(signature: CommitSignature): string {
  return signature.state === 'forge'
    ? 'Commits: created through the forge’s API and signed by it (Verified).'
    : `**Warning:** the commits of this change are unsigned: they were pushed over git because ${signature.reason ?? 'the forge could not create them'}.`;
}

/**
 * The body as published: redacted, then the signed verification block for `headSha` at the
 * end (signed after redaction, so what the dashboard verifies is what the PR shows).
 */
export function publishedPullRequestBody(
  op: Operation,
  summary: string,
  headSha: string,
  redactor: Pick<Redactor, 'redact' | 'redactValue'>,
  verificationKey: string | undefined,
): string {
  const body = redactor.redact(pullRequestBody(op, summary));
  if (!verificationKey) return body;
  const block = redactor.redactValue(verificationBlockOf(op, headSha));
  return `${body}\n\n${signVerification(block, verificationKey)}`;
}

/** The tracking comment's first words: what was checked, and what the PR waits for. */
export function openedNote(op: Operation): string {
  const checks = op.checks.map(
    (c) => `${c.name} ${c.passed ? 'passed' : c.preExisting ? 'failing before too' : 'FAILED'}`,
  );
  return `Pull request opened. Checks: ${checks.join(', ') || 'none'}. Waiting for an approval of this head.`;
}
