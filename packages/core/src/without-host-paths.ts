/**
 * An absolute filesystem path in running text: `/` then at least two segments, not part of a
 * URL (`https://host/a/b`) or of a relative path (`refs/heads/x`, `src/a.ts`).
 */
const ABSOLUTE_PATH = /(?<![\w.~:/-])\/(?:[\w.@+~-]+\/)+[\w.@+~-]*/g;

/**
 * Text for people (an operation's reason, an API error) with every absolute path of the
 * server cut to its last segment (`…/app.git`): where the worker keeps its data, its forge
 * and its worktrees is nobody's business outside it. A git error once put the local forge's
 * absolute path into an operation's failure reason.
 */
export function withoutHostPaths(text: string): string {
  return text.replace(ABSOLUTE_PATH, (found) => {
    const last = found.replace(/\/+$/, '').split('/').pop();
    return last ? `…/${last}` : '…';
  });
}
