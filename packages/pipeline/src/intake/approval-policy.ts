import {
  type Action,
  type ApprovalRecord,
  InvalidTransitionError,
  type Logger,
  type Operation,
  type Policy,
  PullwrightError,
  type RequesterSource,
  type RiskAssessment,
  ValidationError,
} from '@pullwright/core';
import type { Forge } from '@pullwright/forge';
import {
  analyzeDiff,
  assertAuthorized,
  assertBudgetWithinCaps,
  assessRisk,
  autoApprove,
  type BudgetCaps,
  type BudgetFields,
  budgetCaps,
  evaluateApprovals,
  type Identity,
  IdentityDirectory,
  mergePolicies,
  POLICY_IDENTITY,
  type RepoPolicyFile,
  type ServicePolicyFile,
  servicePolicy,
} from '@pullwright/policy';
import type { CodeQueue, OperationEvents, OperationStore } from '@pullwright/queue';
import type { z } from 'zod';

export type Caller = { user: string; source: z.infer<typeof RequesterSource> };

interface ApprovalPolicyDeps {
  store: OperationStore;
  events: OperationEvents;
  queue: CodeQueue;
  /** Reads a PR's diff when an operation has no risk for its current head yet. */
  forge?: Pick<Forge, 'pullRequestDiff'>;
  logger?: Logger;
  /** The configured per-operation limits (MAX_TURNS…): a request's budget above them needs an admin. */
  budget: BudgetCaps;
}

/**
 * The policy as the pipeline and every entry point apply it: who someone is, what they may
 * do, what an operation still needs before it merges. One instance per process, built from
 * `POLICY_FILE` and `IDENTITIES`.
 */
export class ApprovalPolicy {
  constructor(
    private readonly deps: ApprovalPolicyDeps,
    readonly service: ServicePolicyFile = {},
    readonly identities: IdentityDirectory = new IdentityDirectory(undefined),
  ) {}

  identity(by: { user: string; source: Caller['source'] | 'policy' }): Identity {
    return this.identities.resolve(by);
  }

  /** The snapshot taken at claim time; the service policy for operations claimed before one existed. */
  policyOf(op: Pick<Operation, 'policy'>): Policy {
    return op.policy ?? servicePolicy(this.service);
  }

  /**
   * A request's own budget: anything up to the caps (the service policy's `budgets`, else the
   * configured defaults); above them only an admin named in IDENTITIES. Throws `BudgetCapError` (403).
   */
  authorizeBudget(by: Caller, budget: BudgetFields): void {
    const caps = budgetCaps(this.deps.budget, this.service.budgets);
    assertBudgetWithinCaps(this.identity(by), budget, caps, this.identities.configured);
  }

  /** `authorize` for one caller and one operation (or none, for a new request); throws `ForbiddenError`. */
  authorize(by: Caller, action: Action, op?: Pick<Operation, 'policy' | 'requester'>): Identity {
    const identity = this.identity(by);
    return assertAuthorized(identity, action, {
      permissions: op ? this.policyOf(op).permissions : servicePolicy(this.service).permissions,
      ...(op ? { requesterId: this.identity(op.requester).id } : {}),
    });
  }

  /**
   * A request may waive a person's approval (`approvalRequired: false`) only where the service
   * policy allows auto-approval at all; the repository's file and the auto-approval rules can
   * still require one (see `atClaim`, `afterPullRequest`).
   */
  assertApprovalChoice(approvalRequired: boolean | undefined): void {
    if (approvalRequired !== false || servicePolicy(this.service).auto_approve.enabled) return;
    throw new ValidationError('approvalRequired cannot be false here', [
      {
        field: 'approvalRequired',
        reason:
          'false needs a policy that allows auto-approval (auto_approve.enabled in POLICY_FILE); this one does not',
      },
    ]);
  }

  /**
   * Claim time: the base commit's `.pullwright.yml`, parsed once by the prepare step (never
   * the worktree, which may hold the agent's changes), merged under the service policy and
   * fixed on the operation. A bad file throws `PolicyFileError` naming the field; a requester the
   * repository's stricter `permissions.request` excludes throws `ForbiddenError`.
   */
  async atClaim(opId: string, file: RepoPolicyFile | undefined): Promise<Operation> {
    const policy = mergePolicies(this.service, file ?? {});
    const op = await this.deps.store.get(opId);
    assertAuthorized(this.identity(op.requester), 'request', { permissions: policy.permissions });
    if (op.origin?.kind === 'issue' && !policy.triggers.issues.enabled)
      throw new PullwrightError('forbidden', `operations from issues are off for ${op.repo} (triggers.issues.enabled)`);
    // False only where the effective policy allows auto-approval; unset follows the policy.
    const approvalRequired = !policy.auto_approve.enabled || op.approvalRequired === true;
    return this.deps.store.patch(
      opId,
      { policy, approvalRequired },
      {
        type: 'step',
        data: {
          step: 'policy',
          file: file === undefined ? null : '.pullwright.yml',
          approvals: policy.approvals.required,
          pathRules: policy.path_rules.map((r) => r.name),
          autoApprove: policy.auto_approve.enabled,
          approvalRequired,
          deploy: policy.deploy?.target.kind ?? null,
        },
      },
    );
  }

  /**
   * Right after the PR is opened (status awaiting_approval): records the risk of the final
   * diff and, when the policy allows and every criterion holds, approves as `policy`.
   */
  async afterPullRequest(opId: string, diff: string): Promise<Operation> {
    const { store, events } = this.deps;
    let op = await store.get(opId);
    const headSha = op.pullRequest?.headSha;
    const analysis = analyzeDiff(diff, { secretFindings: op.findings.length });
    const risk: RiskAssessment = { ...assessRisk(analysis), ...(headSha ? { headSha } : {}) };
    op = await store.patch(opId, { risk }, { type: 'risk', data: { level: risk.level, reasons: risk.reasons } });
    const policy = this.policyOf(op);
    if (!policy.auto_approve.enabled || !headSha) return op;
    if (op.approvalRequired) {
      await events.append(opId, 'auto_approval', {
        approved: false,
        reasons: ['the request asked for a person to approve (approvalRequired)'],
      });
      return op;
    }
    const decision = autoApprove(op, analysis, policy);
    if (!decision.approve) {
      await events.append(opId, 'auto_approval', { approved: false, reasons: decision.reasons });
      return op;
    }
    const record: ApprovalRecord = {
      identity: POLICY_IDENTITY,
      user: POLICY_IDENTITY,
      source: 'policy',
      role: 'admin',
      groups: [],
      headSha,
      at: new Date().toISOString(),
      rule: decision.rule,
    };
    return this.record(op, record);
  }

  /** A person's approval of the head they saw; merges once the rules are met. */
  async approve(id: string, by: Caller, headSha?: string): Promise<Operation> {
    const op = await this.deps.store.get(id);
    const identity = this.authorize(by, 'approve', op);
    const current = op.pullRequest?.headSha;
    if (op.status !== 'awaiting_approval') throw new InvalidTransitionError(op.status, 'approved');
    if (current && headSha && headSha !== current) {
      throw new PullwrightError(
        'conflict',
        `the branch moved: approval was for ${headSha.slice(0, 12)}, head is ${current.slice(0, 12)}`,
        { status: op.status },
      );
    }
    return this.record(op, {
      identity: identity.id,
      user: by.user,
      source: by.source,
      role: identity.role ?? 'none',
      groups: identity.groups,
      headSha: current ?? '',
      at: new Date().toISOString(),
    });
  }

  /** What the operation still needs, as the approve path would judge it now. */
  async verdict(op: Operation) {
    return evaluateApprovals({
      policy: this.policyOf(op),
      risk: await this.riskOf(op),
      files: op.filesChanged,
      approvals: op.approvals ?? [],
      headSha: op.pullRequest?.headSha ?? '',
      requesterId: this.identity(op.requester).id,
    });
  }

  /** The stored risk when it is for the current head; else assessed from the PR's diff now. */
  private async riskOf(op: Operation): Promise<Pick<RiskAssessment, 'level'>> {
    const head = op.pullRequest?.headSha;
    if (op.risk && (!op.risk.headSha || op.risk.headSha === head)) return op.risk;
    if (!op.pullRequest || !this.deps.forge) return op.risk ?? { level: 'medium' };
    const diff = await this.deps.forge.pullRequestDiff(op.repo, op.pullRequest.number);
    return assessRisk(diff, { secretFindings: op.findings.length });
  }

  private async record(op: Operation, approval: ApprovalRecord): Promise<Operation> {
    const { store, events, queue } = this.deps;
    const recorded = await store.update(
      op.id,
      (cur) => {
        if (cur.status !== 'awaiting_approval') throw new InvalidTransitionError(cur.status, 'approved');
        if ((cur.pullRequest?.headSha ?? '') !== approval.headSha)
          throw new PullwrightError('conflict', 'the branch moved while the approval was recorded', {
            status: cur.status,
          });
        return { ...cur, approvals: [...(cur.approvals ?? []), approval], updatedAt: new Date().toISOString() };
      },
      {
        type: 'approval',
        data: {
          by: approval.user,
          identity: approval.identity,
          source: approval.source,
          role: approval.role,
          headSha: approval.headSha,
          ...(approval.rule ? { rule: approval.rule } : {}),
        },
      },
    );
    const verdict = await this.verdict(recorded);
    if (!verdict.satisfied) {
      await events.append(op.id, 'approval_pending', { missing: verdict.missing, approvals: verdict.current.length });
      return recorded;
    }
    let approved: Operation;
    try {
      approved = await store.transition(
        op.id,
        'approved',
        { approval: { by: approval.user, source: approval.source, headSha: approval.headSha, at: approval.at } },
        { by: approval.user, source: approval.source, headSha: approval.headSha, approvals: verdict.current.length },
      );
    } catch (err) {
      // A concurrent approval met the rules first and moved the operation on.
      if (err instanceof InvalidTransitionError) return store.get(op.id);
      throw err;
    }
    await queue.add('merge', { opId: op.id, headSha: approval.headSha });
    return approved;
  }
}
