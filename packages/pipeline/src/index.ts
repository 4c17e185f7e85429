/** The gateway's protocol helpers, for the API's routes (which do not depend on the agent package). */
export { type GatewayProtocol, type GatewaySink, gatewayErrorBody, upstreamAnswer } from '@pullwright/agent';
/** A worker runs each job in its token holder's scope: a brokered forge's REST calls use the job's token. */
export { inJobScope } from '@pullwright/forge';
export { BudgetDecisions } from './budget/budget-decisions.ts';
export { tokenHolder } from './budget/operation-accounting.ts';
export { TEST_FILE } from './checks/red-green.ts';
export { detectRepoCommands, RepoChecks, type RepoCommands } from './checks/repo-checks.ts';
export { deploySignature } from './deploy/deploy-webhook.ts';
export type { ModelSubject } from './frame/pipeline-deps.ts';
export { StopOperation } from './frame/stop-operation.ts';
export { commitsToCreate } from './gates/commits-to-create.ts';
export { checkWrite } from './gates/secret-gate.ts';
export { ApprovalPolicy, type Caller } from './intake/approval-policy.ts';
export { DEMO_REFUSAL, DEMO_REPO, DEMO_REQUEST, DEMO_REVISION_REFUSAL } from './intake/demo-mode.ts';
export { OperationActions } from './intake/operation-actions.ts';
export { PlanConfirmations } from './intake/plan-confirmations.ts';
export { analyzeFeatureRequest } from './jobs/analyze-feature-job.ts';
export { deployOperation } from './jobs/deploy-job.ts';
export { mergeOperation } from './jobs/merge-job.ts';
export { invalidateApproval, reviseOperation } from './jobs/revise-job.ts';
export { runOperation } from './jobs/run-job.ts';
export { handleCiFailure } from './revision/ci-revision.ts';
export { createRuntime, type InternalServices, type Runtime } from './runtime.ts';
export { syncIssueTracking } from './tracking/issue-tracking.ts';
export { verifyVerification } from './tracking/verification-block.ts';
export { dependencyCacheOf, installDependencies } from './work/install-dependencies.ts';
