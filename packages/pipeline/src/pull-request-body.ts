import type { Operation } from '@pullwright/core';

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
    `## Checks\n| check | command | result | time |\n|---|---|---|---|\n${checks}`,
    `Requested by ${op.requester.user} via ${op.requester.source}. Operation \`${op.id}\`.`,
  ].join('\n\n');
}
