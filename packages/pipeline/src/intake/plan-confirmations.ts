import { decidePlan, type Operation, type PlanDecision } from '@pullwright/core';
import type { OperationStore } from '@pullwright/queue';
import type { ApprovalPolicy, Caller } from './approval-policy.ts';

/**
 * Start / Modify on a plan waiting for confirmation (REST, dashboard). Whoever may approve
 * the operation's change may let its coder start. Cancel is `OperationActions.cancel`.
 */
export class PlanConfirmations {
  constructor(
    private readonly store: OperationStore,
    private readonly policy: Pick<ApprovalPolicy, 'authorize'>,
  ) {}

  async confirmPlan(id: string, by: Caller, decision: PlanDecision['decision'], note?: string): Promise<Operation> {
    this.policy.authorize(by, 'approve', await this.store.get(id));
    const text = note?.trim();
    const d: PlanDecision = { decision, by: by.user, ...(text && decision === 'modify' ? { note: text } : {}) };
    return this.store.update(id, (op) => decidePlan(op, d), {
      type: 'plan_confirmation',
      data: { state: decision === 'start' ? 'started' : 'modified', by: by.user, ...(d.note ? { note: d.note } : {}) },
    });
  }
}
