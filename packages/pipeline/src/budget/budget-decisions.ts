import { type BudgetDecision, budgetDecisionEvent, decideBudget, type Operation } from '@pullwright/core';
import type { OperationStore } from '@pullwright/queue';
import type { ApprovalPolicy, Caller } from '../intake/approval-policy.ts';

/**
 * Extend / Stop on an operation paused at its budget's threshold (REST, dashboard). The
 * requester may decide on their own operation's spend; anyone else needs the approve
 * permission. The running job reads the decision (`stopOrPauseAtBudget`).
 */
export class BudgetDecisions {
  constructor(
    private readonly store: OperationStore,
    private readonly policy: Pick<ApprovalPolicy, 'authorize' | 'identity'>,
  ) {}

  async decide(id: string, by: Caller, action: BudgetDecision['action'], amountUsd?: number): Promise<Operation> {
    const op = await this.store.get(id);
    const requester = this.policy.identity(op.requester).id === this.policy.identity(by).id;
    if (!requester) this.policy.authorize(by, 'approve', op);
    const d: BudgetDecision = { action, by: by.user, ...(amountUsd !== undefined ? { amountUsd } : {}) };
    return this.store.update(id, (cur) => decideBudget(cur, d), budgetDecisionEvent(d));
  }
}
