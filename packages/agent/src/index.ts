export type { AgentStep, ModelCallRecord } from './agent-loop.ts';
export { analyzeFeature } from './analyze-feature.ts';
export { type BudgetLimits, BudgetTracker } from './budget-tracker.ts';
export { failingTests, failureFingerprint, firstFailingTrace, passingTests, testCounts } from './check-failures.ts';
export { extractModelJson, type Parsed } from './extract-model-json.ts';
export { loadRepositoryInstructions, RepositoryInstructions } from './instructions/index.ts';
export { type McpCallRecord, McpToolbox } from './mcp/index.ts';
export {
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
  type TextBlock,
  type ToolUseBlock,
  zeroUsage,
} from './model-provider.ts';
export { createModelProvider } from './providers/create-model-provider.ts';
export {
  type ForwardedCall,
  forwardAnthropicMessages,
  forwardChatCompletions,
  type GatewayProtocol,
  type GatewaySink,
  gatewayErrorBody,
  type RequestBody,
  upstreamAnswer,
} from './providers/gateway-upstream.ts';
export { BUDGET_ERROR_TYPE } from './providers/model-provider-error.ts';
export { OpenAIProvider } from './providers/openai-provider.ts';
export { costOf, PRICE_TABLE, type PriceTable, priceTableWith } from './providers/price-table.ts';
export { DEFAULT_RETRY_POLICY } from './providers/retry-options.ts';
export { loadReplayTranscript, ReplayProvider, ReplayTranscript } from './replay-provider.ts';
export { buildRepoMap, estimateTokens, guardedFiles, type RepoFiles, worktreeFiles } from './repo-map.ts';
export { numberPlan } from './role-outputs.ts';
export { coderPrompt } from './role-prompts.ts';
export type { SolveInput } from './solve/solve-input.ts';
export {
  type BaselineCheck,
  blockingFailures,
  type FixReportEntry,
  type SolveOutcome,
  type SolveResult,
  solveRequest,
} from './solve-request.ts';
export {
  ALL_TOOLS,
  type CheckRun,
  type CheckRunner,
  listRepoFiles,
  type ToolContext,
  ToolInputError,
  truncateOutput,
} from './tools/index.ts';
export { TranscriptWriter } from './transcript-writer.ts';
