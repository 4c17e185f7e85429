import Anthropic, { APIConnectionError, APIConnectionTimeoutError } from '@anthropic-ai/sdk';
import type { ModelProvider, ModelRequest, ModelResponse } from '../model-provider.ts';
import { type AnthropicReply, fromAnthropicMessage } from './anthropic-message.ts';
import { buildAnthropicParams } from './anthropic-request.ts';
import { AnthropicStreamAssembler } from './anthropic-stream-assembler.ts';
import { AnthropicTurnMemory } from './anthropic-turn-memory.ts';
import { ProviderRetries } from './provider-retries.ts';
import type { RetryOptions } from './retry-options.ts';

export interface AnthropicProviderOptions extends RetryOptions {
  apiKey: string;
  /** Default: the SDK's (https://api.anthropic.com). Config: ANTHROPIC_BASE_URL. */
  baseURL?: string | undefined;
  model: string;
  /**
   * Default true: a streamed reply keeps bytes flowing through proxies that cut idle
   * connections, and a stream that breaks is retried whole.
   */
  stream?: boolean | undefined;
  /** cache_control on the last tool, the system prompt and the latest turn. Default true. */
  promptCaching?: boolean | undefined;
}

/** Claude through the Messages API, with tools, prompt caching, streaming and our retry policy. */
export class AnthropicProvider implements ModelProvider {
  readonly name = 'anthropic';
  readonly model: string;
  readonly #client: Anthropic;
  readonly #retries: ProviderRetries;
  readonly #stream: boolean;
  readonly #promptCaching: boolean;
  readonly #memory = new AnthropicTurnMemory();

  constructor(options: AnthropicProviderOptions) {
    this.model = options.model;
    this.#retries = new ProviderRetries(this.name, options, {
      connectionError: APIConnectionError,
      timeoutError: APIConnectionTimeoutError,
    });
    this.#stream = options.stream ?? true;
    this.#promptCaching = options.promptCaching ?? true;
    this.#client = new Anthropic({
      apiKey: options.apiKey,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      // Retries and the deadline are ours (see ProviderRetries); the SDK's would stack on top.
      maxRetries: 0,
      timeout: this.#retries.policy.timeoutMs,
      // Its debug level prints request bodies; our logger reports retries instead.
      logLevel: 'off',
    });
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const params = buildAnthropicParams(request, {
      model: this.model,
      promptCaching: this.#promptCaching,
      memory: this.#memory,
    });
    const reply = await this.#retries.run(request.signal, (signal) =>
      this.#stream ? this.#streamed(params, signal) : this.#single(params, signal),
    );
    this.#memory.remember(reply.response.content, reply.raw);
    return reply.response;
  }

  async #single(params: Anthropic.MessageCreateParamsNonStreaming, signal: AbortSignal): Promise<AnthropicReply> {
    const message = await this.#client.messages.create(params, { signal, maxRetries: 0 });
    return fromAnthropicMessage(message);
  }

  async #streamed(params: Anthropic.MessageCreateParamsNonStreaming, signal: AbortSignal): Promise<AnthropicReply> {
    const events = await this.#client.messages.create({ ...params, stream: true }, { signal, maxRetries: 0 });
    const assembler = new AnthropicStreamAssembler();
    for await (const event of events) assembler.push(event);
    // The SDK ends an aborted stream quietly instead of throwing; a partial reply must not pass.
    if (signal.aborted) throw signal.reason;
    return fromAnthropicMessage(assembler.finish());
  }
}
