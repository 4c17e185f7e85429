import OpenAI, { APIConnectionError, APIConnectionTimeoutError } from 'openai';
import type { ModelProvider, ModelRequest, ModelResponse } from '../model-provider.ts';
import { fromChatCompletion } from './openai-completion.ts';
import { buildOpenAIParams } from './openai-request.ts';
import { ProviderRetries } from './provider-retries.ts';
import type { RetryOptions } from './retry-options.ts';

export interface OpenAIProviderOptions extends RetryOptions {
  /** Optional: local servers (vLLM, llama.cpp, Ollama) take none, and then no Authorization header is sent. */
  apiKey?: string | undefined;
  /** Default: https://api.openai.com/v1. Config: OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama). */
  baseURL?: string | undefined;
  model: string;
  /**
   * OpenAI's reasoning models refuse the older `max_tokens`; some local servers only know
   * it. Default: `max_completion_tokens` against OpenAI, `max_tokens` with a custom baseURL.
   */
  maxTokensField?: 'max_completion_tokens' | 'max_tokens' | undefined;
}

/** Any OpenAI-compatible chat-completions endpoint with tool calling. */
export class OpenAIProvider implements ModelProvider {
  readonly name = 'openai';
  readonly model: string;
  readonly #client: OpenAI;
  readonly #retries: ProviderRetries;
  readonly #maxTokensField: 'max_completion_tokens' | 'max_tokens';

  constructor(options: OpenAIProviderOptions) {
    this.model = options.model;
    this.#retries = new ProviderRetries(this.name, options, {
      connectionError: APIConnectionError,
      timeoutError: APIConnectionTimeoutError,
    });
    this.#maxTokensField = options.maxTokensField ?? (options.baseURL ? 'max_tokens' : 'max_completion_tokens');
    const keyless = !options.apiKey;
    this.#client = new OpenAI({
      // The SDK insists on a credential; without a key it gets a placeholder and the
      // header that would carry it is removed below.
      apiKey: options.apiKey || 'unused',
      ...(keyless ? { defaultHeaders: { Authorization: null } } : {}),
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      // Ambient OPENAI_ADMIN_KEY / OPENAI_ORG_ID / OPENAI_PROJECT_ID would otherwise be sent
      // to whatever server baseURL names, local ones included.
      adminAPIKey: null,
      organization: null,
      project: null,
      maxRetries: 0,
      timeout: this.#retries.policy.timeoutMs,
      logLevel: 'off',
    });
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const params = buildOpenAIParams(request, { model: this.model, maxTokensField: this.#maxTokensField });
    return this.#retries.run(request.signal, async (signal) => {
      const completion = await this.#client.chat.completions.create(params, { signal, maxRetries: 0 });
      return fromChatCompletion(completion, this.model);
    });
  }
}
