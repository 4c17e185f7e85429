import { type Action, type Budget, type Operation, PullwrightError } from '@pullwright/core';
import type { CodeQueue, NewOperation, OperationStore, ReviseJobPayload } from '@pullwright/queue';
import type { Deployer } from '../deploy/deploy-operation.ts';
import type { ApprovalPolicy, Caller } from './approval-policy.ts';
import { DEMO_REFUSAL, DEMO_REVISION_REFUSAL } from './demo-mode.ts';

/**
 * What a person can do to an operation, shared by every entry point (REST, dashboard,
 * Slack, GitHub) so they all follow the same rules: each action is authorized by the one
 * policy (`ApprovalPolicy.authorize`) before it happens.
 */
export class OperationActions {
  constructor(
    private readonly store: OperationStore,
    private readonly queue: CodeQueue,
    readonly policy: ApprovalPolicy,
    private readonly deployer?: Deployer,
    /** Demo mode: no model is configured, so new requests are refused with the way out (DEMO_REFUSAL). */
    private readonly demo = false,
  ) {}

  /** For entry points whose action is not one of the methods below (a revise comment, a thread message). */
  async authorize(id: string | undefined, by: Caller, action: Action): Promise<void> {
    this.#refuseInDemo(action);
    this.policy.authorize(by, action, id ? await this.store.get(id) : undefined);
  }

  /** A request's own budget: within the caps, or set by an admin (`BudgetCapError` otherwise). */
  authorizeBudget(by: Caller, budget: Budget): void {
    this.policy.authorizeBudget(by, budget);
  }

  /**
   * Demo mode refuses new requests (every surface asks `request` first) and revisions and
   * messages (`revise`: no model could read them), naming how to add a model.
   */
  #refuseInDemo(action: Action): void {
    if (!this.demo) return;
    if (action === 'request') throw new PullwrightError('conflict', DEMO_REFUSAL, { demo: true });
    if (action === 'revise') throw new PullwrightError('conflict', DEMO_REVISION_REFUSAL, { demo: true });
  }

  /** A new request: the caller needs the role to request; enqueued once per idempotency key. */
  async create(
    input: NewOperation & { requester: Caller },
    idempotencyKey?: string,
  ): Promise<{ op: Operation; created: boolean }> {
    this.#refuseInDemo('request');
    this.policy.authorize(input.requester, 'request');
    if (input.budget) this.authorizeBudget(input.requester, input.budget);
    this.policy.assertApprovalChoice(input.approvalRequired);
    const result = idempotencyKey
      ? await this.store.createOnce(idempotencyKey, input)
      : { op: await this.store.create(input), created: true };
    return this.#enqueued(result);
  }

  /**
   * Work the configuration started (a repository's schedule, an operator's event source):
   * no person asked, so the configuration is the authority (requester source `policy`). No
   * budget or approval choice of its own: the policy's budgets and approval rules apply. Once
   * per key.
   */
  async createFromPolicy(
    input: Omit<NewOperation, 'budget' | 'approvalRequired'> & { requester: { source: 'policy'; user: string } },
    idempotencyKey: string,
  ): Promise<{ op: Operation; created: boolean }> {
    this.#refuseInDemo('request');
    return this.#enqueued(await this.store.createOnce(idempotencyKey, input));
  }

  async #enqueued(result: { op: Operation; created: boolean }): Promise<{ op: Operation; created: boolean }> {
    // Enqueue even for a replayed request: the job id is the operation id, so this is a no-op
    // when the first request got as far as enqueueing, and a repair when it did not.
    await this.queue.add('run', { opId: result.op.id, priority: result.op.priority });
    return result;
  }

  /**
   * Records the approval, bound to the head sha the approver saw (a different sha is refused).
   * The operation moves to `approved` and merges only once the policy's rules are met;
   * otherwise it stays `awaiting_approval` with an event saying what is still needed.
   */
  approve(id: string, by: Caller, headSha?: string): Promise<Operation> {
    return this.policy.approve(id, by, headSha);
  }

  async reject(id: string, by: Caller, reason?: string): Promise<Operation> {
    this.policy.authorize(by, 'reject', await this.store.get(id));
    return this.store.end(
      id,
      { code: 'rejected', by: by.user, ...(reason ? { note: reason } : {}) },
      {},
      { by: by.user },
    );
  }

  /**
   * A queued operation is cancelled at once; a running one is asked to stop and the worker
   * ends it between steps (it owns the worktree and must clean up).
   */
  async cancel(id: string, by: Caller): Promise<Operation> {
    const op = await this.store.get(id);
    this.policy.authorize(by, 'cancel', op);
    if (op.status === 'queued') {
      await this.queue.removeWaiting(id);
      return this.store.end(id, { code: 'requested', by: by.user }, {}, { by: by.user });
    }
    if (op.status === 'running') {
      return this.store.patch(id, { cancelRequested: true }, { type: 'cancel_requested', data: { by: by.user } });
    }
    throw new PullwrightError('invalid_transition', `cannot cancel an operation that is ${op.status}`, {
      from: op.status,
      to: 'cancelled',
    });
  }

  /**
   * A revision (a review, a `/pullwright` comment, a change request from Slack or the
   * dashboard): the caller needs the `revise` permission of the operation's policy, then one
   * revise job per request id. Returns the job id.
   */
  async revise(id: string, by: Caller, payload: Omit<ReviseJobPayload, 'opId'>): Promise<string> {
    this.#refuseInDemo('revise');
    this.policy.authorize(by, 'revise', await this.store.get(id));
    return this.queue.add('revise', { ...payload, opId: id });
  }

  /**
   * Red CI on the PR head, seen by a webhook: one look at it per head after the policy's
   * settle delay (a BullMQ delayed job, so every check can finish first). Refused when the
   * repository's policy turned CI revisions off.
   */
  async noteFailedChecks(id: string, headSha: string, runUrl?: string): Promise<string> {
    const ci = this.#ciPolicy(await this.store.get(id));
    return this.queue.add('ci_failure', { opId: id, headSha, settleMs: ci.settle_ms, ...(runUrl ? { runUrl } : {}) });
  }

  /**
   * The revision of a red CI: the same revise job, asked for by the policy itself (no
   * person is behind it), so the policy's `triggers.ci` is what allows it.
   */
  async reviseForFailedChecks(id: string, payload: Omit<ReviseJobPayload, 'opId'>): Promise<string> {
    this.#ciPolicy(await this.store.get(id));
    return this.queue.add('revise', { ...payload, opId: id });
  }

  #ciPolicy(op: Operation) {
    const ci = this.policy.policyOf(op).triggers.ci;
    if (!ci.enabled || ci.max_attempts === 0)
      throw new PullwrightError('forbidden', `CI revisions are off for ${op.repo} (triggers.ci in the policy)`);
    return ci;
  }

  /**
   * A change request in words (a Slack thread reply or modal, the dashboard box, REST
   * `/revise`): one ledger entry from `by`, then the same revise job as a GitHub review.
   * `requestId` makes a redelivered request revise once; `ref` is its id where it was said
   * (a Slack message ts without the dot), else the time. Refused before a PR exists: until
   * then a message to the running operation steers it instead.
   */
  async requestChanges(
    id: string,
    by: Caller & { source: 'slack' | 'dashboard' | 'api' },
    instruction: string,
    requestId: string,
    ref = Date.now(),
  ): Promise<{ requestId: string; jobId: string }> {
    this.#refuseInDemo('revise');
    const op = await this.store.get(id);
    this.policy.authorize(by, 'revise', op);
    if (!op.pullRequest || !['awaiting_approval', 'approved', 'running'].includes(op.status)) {
      throw new PullwrightError(
        'invalid_transition',
        op.pullRequest
          ? `changes can be requested while the pull request is open; ${id} is ${op.status}`
          : `${id} has no pull request yet; send the model a message instead`,
        { from: op.status, to: 'running' },
      );
    }
    const jobId = await this.revise(id, by, {
      requestId,
      feedback: [{ id: ref, kind: by.source, user: by.user, body: instruction }],
    });
    return { requestId, jobId };
  }

  /**
   * A message to a running operation (Slack thread, dashboard, REST) steers the model: the
   * same `revise` permission as asking for a revision.
   */
  async steer(id: string, by: Caller): Promise<Operation> {
    this.#refuseInDemo('revise');
    const op = await this.store.get(id);
    this.policy.authorize(by, 'revise', op);
    return op;
  }

  /** `/deploy`: a deployer starts the configured deploy of a merged operation; it runs in the background. */
  async deploy(id: string, by: Caller): Promise<Operation> {
    const op = await this.store.get(id);
    const identity = this.policy.authorize(by, 'deploy', op);
    if (!this.deployer) throw new PullwrightError('conflict', 'deploys are not available in this process');
    return this.deployer.start(id, identity.id);
  }
}
