import { GitHubCiEvents } from './github-ci-events.ts';
import { GitHubIssueEvents, type GitHubIssueEventsDeps } from './github-issue-events.ts';
import { GitHubReviewEvents } from './github-review-events.ts';

export type GitHubEventsDeps = GitHubIssueEventsDeps;

/**
 * Where a verified delivery goes: the review loop of an operation's PR, issues that start
 * work, or red CI on an operation's PR head. Returns the outcome in words.
 */
export class GitHubEvents {
  readonly #reviews: GitHubReviewEvents;
  readonly #issues: GitHubIssueEvents;
  readonly #ci: GitHubCiEvents;

  constructor(deps: GitHubEventsDeps) {
    this.#reviews = new GitHubReviewEvents(deps);
    this.#issues = new GitHubIssueEvents(deps);
    this.#ci = new GitHubCiEvents(deps);
  }

  handle(event: string, deliveryId: string, payload: unknown): Promise<string> {
    switch (event) {
      case 'issues':
        return this.#issues.issues(payload);
      case 'issue_comment':
        // The same event for both: a comment on a PR is review feedback, on an issue a request.
        return isPullRequestComment(payload)
          ? this.#reviews.handle(event, deliveryId, payload)
          : this.#issues.comment(payload);
      case 'check_suite':
      case 'check_run':
      case 'workflow_run':
        return this.#ci.handle(event, payload);
      default:
        return this.#reviews.handle(event, deliveryId, payload);
    }
  }
}

function isPullRequestComment(payload: unknown): boolean {
  const issue = (payload as { issue?: { pull_request?: unknown } } | null)?.issue;
  return Boolean(issue?.pull_request);
}
