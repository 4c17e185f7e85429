export { analyzeDiff, assessRisk } from './assess-risk.ts';
export { assertAuthorized } from './authorize.ts';
export { autoApprove } from './auto-approve.ts';
export { assertBudgetWithinCaps, type BudgetCaps, type BudgetFields, budgetCaps } from './budget-caps.ts';
export { CronSchedule } from './cron-schedule.ts';
export { evaluateApprovals } from './evaluate-approvals.ts';
export { type Identity, IdentityDirectory, POLICY_IDENTITY } from './identity-directory.ts';
export { type McpServer, resolveMcpServers } from './mcp-servers.ts';
export { mergePolicies, servicePolicy } from './merge-policies.ts';
export { loadServicePolicy, parseRepoPolicy } from './parse-policy-file.ts';
export { globMatcher } from './path-rules.ts';
export {
  type CommandEntry,
  type McpRole,
  RepoPolicyFile,
  ScheduleName,
  ServicePolicyFile,
} from './policy-schema.ts';
