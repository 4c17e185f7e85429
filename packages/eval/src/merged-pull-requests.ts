import type { GitHubForge, PullRequest } from '@pullwright/forge';
import { gitClient } from '@pullwright/workspace';
import type { ChangeCandidate } from './change-candidate.ts';

/** GitHub's closing keywords: "Fixes #12", "resolves #3" (the issue a PR says it solves). */
const CLOSES = /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+#(\d+)\b/gi;

/**
 * How many merged PRs are read per task asked for: most merged PRs are not tasks (no tests,
 * tests already green), and each one examined costs two sandboxed test runs.
 */
const PULLS_PER_TASK = 10;

/**
 * Candidates from the GitHub forge: pull requests merged into `branch`, newest first. The
 * base is the first parent of the commit the merge left on the branch (merge commit, squash,
 * or the last rebased commit), as fetched in the mirror; the problem is the text of the
 * issues the PR closes ("Fixes #12"), else the PR's title and body.
 */
export async function mergedPullRequests(
  forge: GitHubForge,
  mirror: string,
  repo: string,
  branch: string,
  limit: number,
  since?: Date,
): Promise<ChangeCandidate[]> {
  const git = gitClient(mirror);
  const pulls = await forge.listMergedPullRequests(repo, {
    base: branch,
    max: limit * PULLS_PER_TASK,
    ...(since ? { since } : {}),
  });
  const out: ChangeCandidate[] = [];
  for (const pr of pulls) {
    const mergeSha = pr.mergeSha!;
    // Not on the branch as fetched (merged into a branch since deleted, or rewritten): skipped.
    const base = await git.raw(['rev-parse', '--verify', '--quiet', `${mergeSha}^1`]).catch(() => '');
    if (!base.trim()) continue;
    out.push({
      id: String(pr.number),
      baseSha: base.trim(),
      mergeSha,
      problem: await problemOf(forge, repo, pr),
      mergedAt: pr.mergedAt ?? '',
    });
  }
  return out;
}

async function problemOf(forge: GitHubForge, repo: string, pr: PullRequest): Promise<string> {
  const numbers = [...new Set([...pr.body.matchAll(CLOSES)].map((m) => Number(m[1])))].filter((n) => n !== pr.number);
  const issues = [];
  for (const n of numbers) {
    const issue = await forge.readIssue(repo, n);
    if (issue) issues.push(`${issue.title}\n\n${issue.body}`.trim());
  }
  return issues.length > 0 ? issues.join('\n\n') : `${pr.title}\n\n${pr.body}`.trim();
}
