/** A merged change that may become an evaluation task: where it started, where it ended, what it was for. */
export interface ChangeCandidate {
  /** What names it in the instance id: a pull request number, or the commit's short sha. */
  id: string;
  baseSha: string;
  mergeSha: string;
  /** The problem as people wrote it (the issue, the PR, the commit message), not yet sanitized. */
  problem: string;
  /** When it was merged (ISO). */
  mergedAt: string;
}
