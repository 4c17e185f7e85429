import { ConfigError, type Logger } from '@pullwright/core';
import type { ModelProvider } from '../model-provider.ts';
import { AnthropicProvider } from './anthropic-provider.ts';
import { OpenAIProvider } from './openai-provider.ts';
import { DEFAULT_MODELS } from './price-table.ts';

/** `Config['llm']` from @pullwright/core fits this as it is. */
interface ModelProviderConfig {
  provider: 'anthropic' | 'openai' | 'replay';
  model?: string | undefined;
  anthropicApiKey?: string | undefined;
  anthropicBaseUrl?: string | undefined;
  openaiApiKey?: string | undefined;
  openaiBaseUrl?: string | undefined;
  /** Per attempt; see the providers. */
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  /** Anthropic only. Default true. */
  stream?: boolean | undefined;
}

/**
 * Builds the provider the config names. Replay lives with the agent loop, so its
 * construction is the caller's: `replay` is called only when the config asks for it.
 */
export function createModelProvider(
  config: ModelProviderConfig,
  replay: (config: ModelProviderConfig) => ModelProvider,
  logger?: Logger,
): ModelProvider {
  const retry = { timeoutMs: config.timeoutMs, maxRetries: config.maxRetries, logger };
  switch (config.provider) {
    case 'anthropic':
      if (!config.anthropicApiKey) {
        throw new ConfigError([{ variable: 'ANTHROPIC_API_KEY', reason: 'required when LLM_PROVIDER=anthropic' }]);
      }
      return new AnthropicProvider({
        apiKey: config.anthropicApiKey,
        baseURL: config.anthropicBaseUrl,
        model: config.model ?? DEFAULT_MODELS.anthropic,
        stream: config.stream,
        ...retry,
      });
    case 'openai':
      // A base URL without a key is a local server (vLLM, llama.cpp, Ollama); OpenAI itself needs the key.
      if (!config.openaiApiKey && !config.openaiBaseUrl) {
        throw new ConfigError([
          { variable: 'OPENAI_API_KEY', reason: 'required when LLM_PROVIDER=openai without OPENAI_BASE_URL' },
        ]);
      }
      return new OpenAIProvider({
        apiKey: config.openaiApiKey,
        baseURL: config.openaiBaseUrl,
        model: config.model ?? DEFAULT_MODELS.openai,
        ...retry,
      });
    case 'replay':
      return replay(config);
  }
}
