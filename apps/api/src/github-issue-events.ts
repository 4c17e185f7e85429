import { FINAL_STATUSES, isPullwrightError, type Logger, type Operation, type OperationType } from '@pullwright/core';
import type { Forge } from '@pullwright/forge';
import { type OperationActions, syncIssueTracking } from '@pullwright/pipeline';
import { servicePolicy } from '@pullwright/policy';
import type { OperationStore, RedisClient } from '@pullwright/queue';
import { type Redactor, sanitizeUntrustedText } from '@pullwright/security';
import { z } from 'zod';
import { GitHubRepository, GitHubUser } from './github-payload-shapes.ts';

/** `/pullwright debug|implement|fix [instruction]` at the start of a comment on an issue. */
const ISSUE_COMMAND = /^\s*\/pullwright\s+(debug|implement|fix)\b[ \t]*([\s\S]*)$/i;
/** Long enough to outlive any operation's record (RETENTION_DAYS is 30 by default); a stale one is harmless. */
const ISSUE_KEY_TTL_S = 90 * 24 * 3600;
/** The operation's description is capped at 20 000 characters; the issue text is cut to fit. */
const DESCRIPTION_LIMIT = 19_000;

/** The work targets the repository's default branch, as a person opening a PR for the issue would. */
const Repository = GitHubRepository.extend({ default_branch: z.string().min(1) });
const Issue = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  body: z.string().nullish(),
  html_url: z.string(),
  pull_request: z.unknown().optional(),
});
const IssuesEvent = z.object({
  action: z.string(),
  issue: Issue,
  label: z.object({ name: z.string() }).optional(),
  assignee: GitHubUser.nullish(),
  repository: Repository,
  sender: GitHubUser,
});
const IssueCommentEvent = z.object({
  action: z.string(),
  issue: Issue,
  comment: z.object({ id: z.number(), body: z.string(), user: GitHubUser }),
  repository: Repository,
  sender: GitHubUser,
});
type Issue = z.infer<typeof Issue>;
type Repository = z.infer<typeof Repository>;

export interface GitHubIssueEventsDeps {
  store: OperationStore;
  actions: OperationActions;
  forge: Forge;
  redactor: Redactor;
  logger: Logger;
  redis: RedisClient;
  /** Prefix of the issue → operation keys (REDIS_PREFIX). */
  keyPrefix: string;
}

interface Trigger {
  kind: 'label' | 'assignment' | 'comment';
  type: OperationType;
  /** The comment's own words after the command. */
  instruction?: string;
  /** The comment that asked: it gets the reaction. */
  commentId?: number;
}

/**
 * Issues that start work: the policy's label added, the app's bot assigned, or a
 * `/pullwright debug|implement|fix …` comment. The person who did it must have write access
 * and the policy's `request` role (a bot only when the policy names it). One operation per
 * issue at a time: a second trigger while one is active is answered on the issue. Closing
 * the issue or removing the label cancels the active operation.
 */
export class GitHubIssueEvents {
  constructor(private readonly deps: GitHubIssueEventsDeps) {}

  async issues(payload: unknown): Promise<string> {
    const e = IssuesEvent.parse(payload);
    if (e.issue.pull_request) return 'ignored: a pull request, not an issue';
    const { label } = this.#triggers().issues;
    switch (e.action) {
      case 'labeled':
        if (e.label?.name !== label) return `ignored: label ${e.label?.name ?? '?'} is not ${label}`;
        return this.#start(e.repository, e.issue, e.sender, { kind: 'label', type: 'fix' });
      case 'assigned': {
        const bot = await this.deps.forge.botLogin();
        if (!bot || e.assignee?.login !== bot) return 'ignored: not assigned to Pullwright';
        return this.#start(e.repository, e.issue, e.sender, { kind: 'assignment', type: 'fix' });
      }
      case 'unlabeled':
        if (e.label?.name !== label) return `ignored: label ${e.label?.name ?? '?'} is not ${label}`;
        return this.#stop(e.repository.full_name, e.issue.number, e.sender.login, `label ${label} removed`);
      case 'closed':
        return this.#stop(e.repository.full_name, e.issue.number, e.sender.login, 'issue closed');
      default:
        return `ignored: issues ${e.action}`;
    }
  }

  /** `issue_comment` on an issue (comments on pull requests are review feedback, handled elsewhere). */
  async comment(payload: unknown): Promise<string> {
    const e = IssueCommentEvent.parse(payload);
    if (e.action !== 'created') return `ignored: comment ${e.action}`;
    const command = ISSUE_COMMAND.exec(e.comment.body);
    if (!command) return 'ignored: not a /pullwright command';
    const instruction = command[2]!.trim();
    return this.#start(e.repository, e.issue, e.sender, {
      kind: 'comment',
      type: command[1]!.toLowerCase() as OperationType,
      commentId: e.comment.id,
      ...(instruction ? { instruction } : {}),
    });
  }

  async #start(repository: Repository, issue: Issue, sender: GitHubUser, trigger: Trigger): Promise<string> {
    const { forge, actions, store, redis } = this.deps;
    const repo = repository.full_name;
    if (!this.#triggers().issues.enabled) return 'ignored: operations from issues are off';
    const refusal = await this.#refusal(repo, sender);
    if (refusal) {
      // A bot is not answered: two bots answering each other never stop.
      if (sender.type !== 'Bot') await this.#answer(repo, issue.number, `@${sender.login}: ${refusal}`);
      return `ignored: ${refusal}`;
    }
    const key = this.#issueKey(repo, issue.number);
    const previous = await redis.get(key);
    const active = previous ? await store.find(previous) : undefined;
    if (active && !FINAL_STATUSES.has(active.status)) {
      await this.#answer(
        repo,
        issue.number,
        `@${sender.login}: operation \`${active.id}\` is already ${active.status.replace(/_/g, ' ')} for this issue; it was not started again.`,
      );
      return `answered: operation ${active.id} is already ${active.status}`;
    }
    const origin = {
      kind: 'issue' as const,
      repo,
      number: issue.number,
      url: issue.html_url,
      // Shown by Slack and the dashboard like the description, so masked like it.
      title: this.deps.redactor.redact(sanitizeUntrustedText(issue.title)).slice(0, 500),
      trigger: trigger.kind,
    };
    // The comment exists before the job is queued, so the worker edits it and never posts a second.
    await forge
      .upsertTrackingComment(repo, issue.number, `**Pullwright** · starting (${trigger.kind} by @${sender.login})`)
      .catch((err: unknown) => this.deps.logger.warn({ err: (err as Error).message }, 'tracking comment failed'));
    // One creation per (issue, previous operation): triggers racing each other (a label and an
    // assignment arrive together) make one operation between them.
    const { op, created } = await actions.create(
      {
        type: trigger.type,
        repo,
        baseBranch: repository.default_branch,
        description: this.#description(issue, sender.login, trigger.instruction),
        requester: { source: 'github', user: sender.login },
        origin,
      },
      `github-issue:${repo}#${issue.number}:after:${previous ?? 'none'}`,
    );
    await redis.set(key, op.id, 'EX', ISSUE_KEY_TTL_S);
    if (!created) {
      // Our "starting" line may have overwritten what the winner wrote: put its state back.
      await syncIssueTracking(this.deps, await store.get(op.id));
      return `answered: operation ${op.id} was started by another trigger`;
    }
    const target = trigger.commentId !== undefined ? { comment: trigger.commentId } : { issue: issue.number };
    await forge
      .addReaction(repo, target, 'eyes')
      .catch((err: unknown) => this.deps.logger.warn({ err: (err as Error).message }, 'reaction failed'));
    await syncIssueTracking(this.deps, op, `queued by @${sender.login} (${trigger.kind})`);
    return `operation ${op.id} queued`;
  }

  async #stop(repo: string, number: number, by: string, why: string): Promise<string> {
    const id = await this.deps.redis.get(this.#issueKey(repo, number));
    const op = id ? await this.deps.store.find(id) : undefined;
    if (!op) return `ignored: no operation for this issue (${why})`;
    // A PR that is open already is the people's to close or reject; only unfinished work stops.
    if (op.status !== 'queued' && op.status !== 'running')
      return `ignored: operation ${op.id} is ${op.status} (${why})`;
    let after: Operation;
    try {
      after = await this.deps.actions.cancel(op.id, { user: by, source: 'github' });
    } catch (err) {
      if (isPullwrightError(err) && (err.code === 'forbidden' || err.code === 'invalid_transition'))
        return `ignored: ${err.message}`;
      throw err;
    }
    // A queued operation ends here; a running one is ended by its worker, which updates the comment.
    if (after.status === 'cancelled') await syncIssueTracking(this.deps, after);
    return `cancel requested: ${why}`;
  }

  /** Why `sender` may not start work, or undefined. Write access first (anyone can comment on a public issue), then the policy's role. */
  async #refusal(repo: string, sender: GitHubUser): Promise<string | undefined> {
    const allowedBot = this.#triggers().allow_bots.some((b) => b.toLowerCase() === sender.login.toLowerCase());
    if (sender.type === 'Bot' && !allowedBot) return `${sender.login} is a bot the policy does not allow`;
    if (!allowedBot && !(await this.deps.forge.hasWriteAccess(repo, sender.login)))
      return `${sender.login} has no write access to ${repo}, so this was ignored`;
    try {
      this.deps.actions.policy.authorize({ user: sender.login, source: 'github' }, 'request');
    } catch (err) {
      if (isPullwrightError(err) && err.code === 'forbidden') return `${err.message}, so this was ignored`;
      throw err;
    }
    return undefined;
  }

  /** The issue's title and body as the model may read them: hidden text removed, cut to fit. */
  #description(issue: Issue, by: string, instruction: string | undefined): string {
    const parts = [sanitizeUntrustedText(issue.title), sanitizeUntrustedText(issue.body ?? '')];
    const ask = instruction ? `\n\nInstruction from @${by}: ${sanitizeUntrustedText(instruction)}` : '';
    const text = parts.filter(Boolean).join('\n\n').slice(0, DESCRIPTION_LIMIT);
    return `${text}${ask}`.slice(0, 20_000) || `Issue #${issue.number}`;
  }

  async #answer(repo: string, number: number, text: string): Promise<void> {
    await this.deps.forge
      .commentOnIssue(repo, number, this.deps.redactor.redact(text))
      .catch((err: unknown) => this.deps.logger.warn({ err: (err as Error).message }, 'answer on the issue failed'));
  }

  #triggers() {
    return servicePolicy(this.deps.actions.policy.service).triggers;
  }

  #issueKey(repo: string, number: number): string {
    return `${this.deps.keyPrefix}:github:issue-operation:${repo}#${number}`;
  }
}
