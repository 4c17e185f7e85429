import type { Operation } from '@pullwright/core';

/** The one progress comment on the PR: status, head, and what happened last (a failure: its report). */
export function trackingBody(op: Operation, note: string): string {
  const status = op.status.replace(/_/g, ' ');
  const head = op.pullRequest?.headSha ? ` · head \`${op.pullRequest.headSha.slice(0, 7)}\`` : '';
  return `**Pullwright** · operation \`${op.id}\` · ${status}${head}\n\n${note}`;
}
