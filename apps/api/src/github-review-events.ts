import { isPullwrightError, type Logger, type Operation } from '@pullwright/core';
import type { Forge } from '@pullwright/forge';
import { invalidateApproval, type OperationActions } from '@pullwright/pipeline';
import type { OperationStore, ReviewFeedback } from '@pullwright/queue';
import { z } from 'zod';
import { GitHubRepository, GitHubUser } from './github-payload-shapes.ts';
import { operationForBranch } from './operation-for-branch.ts';

/** `/pullwright <instruction>` at the start of a comment; the rest of the comment is the instruction. */
const COMMAND = /^\s*\/pullwright\s+(\S[\s\S]*)$/;

const User = GitHubUser;
const Repository = GitHubRepository;
const PullRequestShape = z.object({
  number: z.number(),
  head: z.object({ ref: z.string(), sha: z.string() }),
  merged: z.boolean().nullish(),
  merged_by: User.nullish(),
});

const ReviewEvent = z.object({
  action: z.string(),
  review: z.object({
    id: z.number(),
    state: z.string(),
    body: z.string().nullable(),
    commit_id: z.string(),
    user: User,
  }),
  pull_request: PullRequestShape,
  repository: Repository,
  sender: User,
});
const ReviewCommentEvent = z.object({
  action: z.string(),
  comment: z.object({
    id: z.number(),
    body: z.string(),
    path: z.string(),
    line: z.number().nullish(),
    original_line: z.number().nullish(),
    user: User,
  }),
  pull_request: PullRequestShape,
  repository: Repository,
  sender: User,
});
const IssueCommentEvent = z.object({
  action: z.string(),
  issue: z.object({ number: z.number(), pull_request: z.unknown().optional() }),
  comment: z.object({ id: z.number(), body: z.string(), user: User }),
  repository: Repository,
  sender: User,
});
const PullRequestEvent = z.object({
  action: z.string(),
  pull_request: PullRequestShape,
  after: z.string().optional(),
  repository: Repository,
  sender: User,
});

interface GitHubReviewEventsDeps {
  store: OperationStore;
  actions: OperationActions;
  forge: Forge;
  logger: Logger;
}

/**
 * What a verified GitHub delivery does to an operation. Only events on an operation's own
 * PR count, and only people with write access steer it: a review approves (bound to the
 * reviewed commit), changes requested or `/pullwright …` revise, a push after approval
 * invalidates it, closing ends it. Returns the outcome in words, for the log and the reply.
 */
export class GitHubReviewEvents {
  constructor(private readonly deps: GitHubReviewEventsDeps) {}

  async handle(event: string, deliveryId: string, payload: unknown): Promise<string> {
    switch (event) {
      case 'pull_request_review':
        return this.#review(deliveryId, ReviewEvent.parse(payload));
      case 'pull_request_review_comment':
        return this.#reviewComment(deliveryId, ReviewCommentEvent.parse(payload));
      case 'issue_comment':
        return this.#issueComment(deliveryId, IssueCommentEvent.parse(payload));
      case 'pull_request':
        return this.#pullRequest(PullRequestEvent.parse(payload));
      case 'ping':
        return 'pong';
      default:
        return `ignored: ${event} events are not used`;
    }
  }

  async #review(deliveryId: string, e: z.infer<typeof ReviewEvent>): Promise<string> {
    if (e.action !== 'submitted') return `ignored: review ${e.action}`;
    const repo = e.repository.full_name;
    const op = await this.#operation(repo, e.pull_request.number, e.pull_request.head.ref);
    if (!op) return 'ignored: not a Pullwright pull request';
    const user = e.review.user.login;
    const denied = await this.#denied(repo, e.sender);
    if (denied) return denied;
    const state = e.review.state.toLowerCase();
    if (state === 'approved') {
      if (op.status !== 'awaiting_approval') return `ignored: operation is ${op.status}`;
      try {
        await this.deps.actions.approve(op.id, { user, source: 'github' }, e.review.commit_id);
        return `approved at ${e.review.commit_id.slice(0, 12)}`;
      } catch (err) {
        // An approval of an older commit: the reviewer has not seen the head.
        if (isPullwrightError(err) && (err.code === 'conflict' || err.code === 'invalid_transition'))
          return `ignored: ${err.message}`;
        throw err;
      }
    }
    const body = e.review.body ?? '';
    const command = COMMAND.exec(body);
    if (state === 'changes_requested' || command) {
      const feedback: ReviewFeedback[] = body.trim()
        ? [{ id: e.review.id, kind: 'review', user, body: command?.[1] ?? body }]
        : [];
      return this.#revise(op, deliveryId, user, feedback, e.review.id);
    }
    return 'ignored: a review comment without a request';
  }

  async #reviewComment(deliveryId: string, e: z.infer<typeof ReviewCommentEvent>): Promise<string> {
    if (e.action !== 'created') return `ignored: comment ${e.action}`;
    const command = COMMAND.exec(e.comment.body);
    // Inline comments of a review arrive again with the review itself; alone they only count as commands.
    if (!command) return 'ignored: not a /pullwright command';
    const repo = e.repository.full_name;
    const op = await this.#operation(repo, e.pull_request.number, e.pull_request.head.ref);
    if (!op) return 'ignored: not a Pullwright pull request';
    const denied = await this.#denied(repo, e.sender);
    if (denied) return denied;
    const line = e.comment.line ?? e.comment.original_line;
    return this.#revise(op, deliveryId, e.comment.user.login, [
      {
        id: e.comment.id,
        kind: 'review_comment',
        user: e.comment.user.login,
        body: command[1]!,
        path: e.comment.path,
        ...(line ? { line } : {}),
      },
    ]);
  }

  async #issueComment(deliveryId: string, e: z.infer<typeof IssueCommentEvent>): Promise<string> {
    if (e.action !== 'created') return `ignored: comment ${e.action}`;
    const command = COMMAND.exec(e.comment.body);
    if (!command) return 'ignored: not a /pullwright command';
    const repo = e.repository.full_name;
    const op = await this.#operation(repo, e.issue.number);
    if (!op) return 'ignored: not a Pullwright pull request';
    const denied = await this.#denied(repo, e.sender);
    if (denied) return denied;
    return this.#revise(op, deliveryId, e.comment.user.login, [
      { id: e.comment.id, kind: 'issue_comment', user: e.comment.user.login, body: command[1]! },
    ]);
  }

  async #pullRequest(e: z.infer<typeof PullRequestEvent>): Promise<string> {
    const repo = e.repository.full_name;
    const pr = e.pull_request;
    if (e.action !== 'closed' && e.action !== 'synchronize') return `ignored: pull_request ${e.action}`;
    const op = await this.#operation(repo, pr.number, pr.head.ref);
    if (!op) return 'ignored: not a Pullwright pull request';
    const { store, actions } = this.deps;
    const by = e.sender.login;

    if (e.action === 'synchronize') {
      const head = e.after ?? pr.head.sha;
      if (op.pullRequest?.headSha === head) return 'ignored: head unchanged';
      if (op.status === 'approved') {
        await invalidateApproval(store, op.id, `${by} pushed ${head.slice(0, 12)} after the approval`, head);
        return 'approval invalidated by a push';
      }
      if (op.status === 'awaiting_approval' && op.pullRequest) {
        await store.patch(
          op.id,
          { headSha: head, pullRequest: { ...op.pullRequest, headSha: head } },
          { type: 'head_moved', data: { by, headSha: head } },
        );
        return 'head updated';
      }
      return `ignored: operation is ${op.status}`;
    }

    if (pr.merged) {
      if (op.status === 'merged' || op.status === 'merging') return `ignored: operation is ${op.status}`;
      return this.#recordOutsideMerge(op, pr.merged_by?.login ?? by, pr.head.sha);
    }
    if (op.status === 'running') {
      await actions.cancel(op.id, { user: by, source: 'github' });
      return 'cancel requested: pull request closed';
    }
    if (op.status === 'approved') await invalidateApproval(store, op.id, `pull request closed by ${by}`);
    if (op.status === 'approved' || op.status === 'awaiting_approval') {
      await actions.reject(op.id, { user: by, source: 'github' }, 'pull request closed on GitHub');
      return 'rejected: pull request closed';
    }
    return `ignored: operation is ${op.status}`;
  }

  /**
   * Merged on GitHub by a person, not by our merge job: recorded along the lifecycle's own
   * path (their merge is their approval), each step marked external.
   */
  async #recordOutsideMerge(op: Operation, by: string, headSha: string): Promise<string> {
    const { store } = this.deps;
    let current = op;
    if (current.status === 'awaiting_approval') {
      current = await store.transition(
        op.id,
        'approved',
        { approval: { by, source: 'github', headSha, at: new Date().toISOString() } },
        { by, source: 'github', headSha, external: true },
      );
    }
    if (current.status !== 'approved') return `ignored: operation is ${current.status}`;
    await store.transition(op.id, 'merging', {}, { external: true });
    await store.end(op.id, { code: 'merged' }, {}, { external: true, by });
    return 'merged outside Pullwright: recorded';
  }

  async #revise(
    op: Operation,
    deliveryId: string,
    user: string,
    feedback: ReviewFeedback[],
    reviewId?: number,
  ): Promise<string> {
    if (op.status !== 'awaiting_approval' && op.status !== 'approved' && op.status !== 'running')
      return `ignored: operation is ${op.status}`;
    try {
      // Write access got them this far; the repository policy's `permissions.revise` decides.
      await this.deps.actions.revise(
        op.id,
        { user, source: 'github' },
        {
          requestId: deliveryId,
          feedback,
          ...(reviewId !== undefined ? { reviewId } : {}),
        },
      );
    } catch (err) {
      if (isPullwrightError(err) && err.code === 'forbidden') return `ignored: ${err.message}`;
      throw err;
    }
    return 'revision queued';
  }

  /** Why the sender may not steer, or undefined when they may. Bots (our own comments included) never do. */
  async #denied(repo: string, sender: z.infer<typeof User>): Promise<string | undefined> {
    if (sender.type === 'Bot') return `ignored: ${sender.login} is a bot`;
    if (await this.deps.forge.hasWriteAccess(repo, sender.login)) return undefined;
    return `ignored: ${sender.login} has no write access to ${repo}`;
  }

  /** The operation whose PR this is: its branch names it, and its record must name this PR back. */
  async #operation(repo: string, number: number, headRef?: string): Promise<Operation | undefined> {
    const ref = headRef ?? (await this.deps.forge.getPullRequest(repo, number)).head;
    return operationForBranch(this.deps.store, repo, ref, number);
  }
}
