/** The gateway's protocol helpers, for the API's routes (which do not depend on the agent package). */
export { type GatewayProtocol, type GatewaySink, gatewayErrorBody, upstreamAnswer } from '@pullwright/agent';
/** A worker runs each job in its token holder's scope: a brokered forge's REST calls use the job's token. */
export { inJobScope } from '@pullwright/forge';
export { ApprovalPolicy, type Caller } from './approval-policy.ts';
export { BudgetDecisions } from './budget/budget-decisions.ts';
export { handleCiFailure } from './ci-revision.ts';
export { DEMO_REFUSAL, DEMO_REPO, DEMO_REQUEST, DEMO_REVISION_REFUSAL } from './demo-mode.ts';
export { deploySignature } from './deploy-webhook.ts';
export { StopOperation } from './frame/stop-operation.ts';
export { commitsToCreate } from './gates/commits-to-create.ts';
export { syncIssueTracking } from './issue-tracking.ts';
export { analyzeFeatureRequest } from './jobs/analyze-feature-job.ts';
export { deployOperation } from './jobs/deploy-job.ts';
export { mergeOperation } from './jobs/merge-job.ts';
export { invalidateApproval, reviseOperation } from './jobs/revise-job.ts';
export { runOperation } from './jobs/run-job.ts';
export { tokenHolder } from './operation-accounting.ts';
export { OperationActions } from './operation-actions.ts';
export type { ModelSubject } from './pipeline-deps.ts';
export { PlanConfirmations } from './plan-confirmations.ts';
export { TEST_FILE } from './red-green.ts';
export { detectRepoCommands, RepoChecks, type RepoCommands } from './repo-checks.ts';
export { createRuntime, type InternalServices, type Runtime } from './runtime.ts';
export { checkWrite } from './secret-gate.ts';
export { dependencyCacheOf, installDependencies } from './steps/install-dependencies.ts';
export { verifyVerification } from './verification-block.ts';
