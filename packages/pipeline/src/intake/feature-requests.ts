import {
  type FeatureRequest,
  FINAL_STATUSES,
  IMPLEMENT_FROM,
  type Operation,
  type OperationPriority,
  PullwrightError,
  TRIAGE_FROM,
} from '@pullwright/core';
import type { CodeQueue, FeatureRequestStore, NewFeatureRequest, OperationStore } from '@pullwright/queue';
import type { Caller } from './approval-policy.ts';
import type { OperationActions } from './operation-actions.ts';

interface FeatureRequestsDeps {
  features: FeatureRequestStore;
  operations: OperationStore;
  queue: CodeQueue;
  actions: OperationActions;
}

interface TriageDecision {
  decision: 'accepted' | 'declined';
  reason?: string;
  /** Overrides the analysis's priority; the /implement operation runs with it. */
  priority?: OperationPriority;
  /** Replaces the analysis's criteria (a person edits what "done" means before Implement). */
  acceptanceCriteria?: string[];
}

/** The operation schema's limit on text handed to the model. */
const MAX_REQUIREMENTS = 20_000;

function notFrom(request: FeatureRequest, action: string): PullwrightError {
  const hint =
    request.status === 'new'
      ? ': its analysis has not finished'
      : request.status === 'analysis_failed'
        ? ': its analysis failed (analyze it again)'
        : '';
  return new PullwrightError(
    'invalid_transition',
    `cannot ${action} a feature request that is ${request.status}${hint}`,
    {
      from: request.status,
      to: request.status,
    },
  );
}

/**
 * The feature-request pipeline as every entry point (REST, dashboard, Slack `/feature`) uses
 * it: capture and queue the analysis; triage; "Implement" as an /implement operation through
 * `OperationActions.create` (the same policy, queue and idempotency as any request). Who may
 * do what follows the policy: capturing and implementing need the `request` role, triage the
 * `approve` role.
 */
export class FeatureRequests {
  constructor(private readonly deps: FeatureRequestsDeps) {}

  /**
   * Captures once per `idempotencyKey` when one is given (a redelivered Slack command). The
   * analysis is enqueued even for a replay: a no-op when it already ran, a repair when the
   * first attempt stopped before enqueueing it.
   */
  async capture(input: NewFeatureRequest, by: Caller, idempotencyKey?: string): Promise<FeatureRequest> {
    await this.deps.actions.authorize(undefined, by, 'request');
    const request = idempotencyKey
      ? (await this.deps.features.createOnce(idempotencyKey, input)).request
      : await this.deps.features.create(input);
    await this.#analyze(request);
    return request;
  }

  /** A failed analysis (or one a person wants redone after editing nothing) runs again. */
  async reanalyze(id: string, by: Caller): Promise<FeatureRequest> {
    await this.deps.actions.authorize(undefined, by, 'request');
    const request = await this.deps.features.update(id, (cur) => {
      if (cur.status !== 'analysis_failed' && cur.status !== 'analyzed') throw notFrom(cur, 'analyze again');
      return { ...cur, status: 'new' };
    });
    await this.#analyze(request);
    return request;
  }

  async triage(id: string, by: Caller, decision: TriageDecision): Promise<FeatureRequest> {
    await this.deps.actions.authorize(undefined, by, 'approve');
    return this.deps.features.update(id, (cur) => {
      if (!TRIAGE_FROM.has(cur.status)) throw notFrom(cur, 'triage');
      return {
        ...cur,
        status: decision.decision,
        triage: {
          decision: decision.decision,
          by: by.user,
          at: new Date().toISOString(),
          ...(decision.reason ? { reason: decision.reason } : {}),
        },
        ...(decision.priority ? { priority: decision.priority } : {}),
        ...(decision.acceptanceCriteria ? { acceptanceCriteria: decision.acceptanceCriteria } : {}),
      };
    });
  }

  /**
   * "Implement": an /implement operation whose `featureContext` carries the request's
   * requirements and acceptance criteria, at the request's priority. Again after an attempt
   * that ended without merging; never twice at once (one operation per request version).
   */
  async implement(
    id: string,
    by: Caller,
    options: { baseBranch?: string } = {},
  ): Promise<{ request: FeatureRequest; op: Operation }> {
    const request = await this.deps.features.get(id);
    if (!IMPLEMENT_FROM.has(request.status)) throw notFrom(request, 'implement');
    if (request.status === 'implementing' && request.operationId) {
      const current = await this.deps.operations.find(request.operationId);
      if (current && !(FINAL_STATUSES.has(current.status) && current.status !== 'merged')) {
        throw new PullwrightError(
          'conflict',
          `feature request ${id} is already being implemented by operation ${current.id} (${current.status})`,
          { status: request.status },
        );
      }
    }
    const requirements = [request.analysis ? `Intent: ${request.analysis.intent}` : '', request.description]
      .filter(Boolean)
      .join('\n\n')
      .slice(0, MAX_REQUIREMENTS);
    const { op } = await this.deps.actions.create(
      {
        type: 'implement',
        repo: request.repo,
        baseBranch: options.baseBranch ?? request.baseBranch,
        description: request.description,
        requester: { source: by.source, user: by.user },
        priority: request.priority,
        featureContext: { featureRequestId: request.id, requirements, acceptanceCriteria: request.acceptanceCriteria },
      },
      `feature:${request.id}:${request.version}`,
    );
    const updated = await this.deps.features.update(id, (cur) => ({
      ...cur,
      status: 'implementing',
      operationId: op.id,
    }));
    return { request: updated, op };
  }

  #analyze(request: FeatureRequest): Promise<string> {
    return this.deps.queue.add('analyze_feature', { featureRequestId: request.id, requestedAt: request.updatedAt });
  }
}
