export * from './anthropic-provider.ts';
export * from './create-model-provider.ts';
export {
  type ForwardedCall,
  forwardAnthropicMessages,
  forwardChatCompletions,
  type GatewayProtocol,
  type GatewaySink,
  gatewayErrorBody,
  type RequestBody,
  upstreamAnswer,
} from './gateway-upstream.ts';
export * from './model-provider-error.ts';
export * from './openai-provider.ts';
export * from './price-table.ts';
export { DEFAULT_RETRY_POLICY, type RetryOptions } from './retry-options.ts';
export type { RetryPolicy } from './with-retries.ts';
