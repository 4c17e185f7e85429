export { createModelProvider } from './create-model-provider.ts';
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
export { BUDGET_ERROR_TYPE } from './model-provider-error.ts';
export { OpenAIProvider } from './openai-provider.ts';
export { costOf, PRICE_TABLE, type PriceTable, priceTableWith } from './price-table.ts';
export { DEFAULT_RETRY_POLICY } from './retry-options.ts';
