import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ModelUsage } from '../model-provider.ts';
import { AnthropicUsageSchema, anthropicUsage } from './anthropic-message.ts';
import { AnthropicStreamAssembler } from './anthropic-stream-assembler.ts';
import { ChatCompletionUsageSchema, chatCompletionUsage } from './openai-completion.ts';

/** Where the gateway's answer goes: one JSON body, or server-sent events as they arrive. */
export interface GatewaySink {
  json(body: unknown): void;
  /** One event of a streamed answer; `name` is the SSE `event:` field (Anthropic names its events, OpenAI does not). */
  event(name: string | undefined, data: unknown): void;
}

/** What a forwarded call cost: the model that answered and its usage, mapped as the worker's provider maps it. */
export interface ForwardedCall {
  model: string;
  usage: ModelUsage;
}

interface UpstreamOptions {
  /** The real key: it lives in the API process only. Optional for a local OpenAI-compatible server. */
  apiKey: string | undefined;
  /** ANTHROPIC_BASE_URL / OPENAI_BASE_URL; the SDK's default when unset. */
  baseURL: string | undefined;
  /** The whole call, stream included; the worker's provider has its own deadline and retries. */
  timeoutMs: number;
  signal: AbortSignal;
}

/** A request body as the worker's SDK sent it (validated only as far as the gateway reads it). */
export type RequestBody = Record<string, unknown> & { model: string; stream?: boolean | undefined };

/**
 * A Messages API call on the worker's behalf, with the real key, streamed through when the
 * worker asked for a stream. The SDK speaks the protocol both ways: its stream is parsed
 * into events, which are written back as events, and folded (like the worker's provider
 * does) into the usage the gateway meters. No retries here: the worker's provider retries,
 * so each attempt is metered.
 */
export async function forwardAnthropicMessages(
  body: RequestBody,
  options: UpstreamOptions,
  sink: GatewaySink,
): Promise<ForwardedCall> {
  const client = new Anthropic({
    apiKey: options.apiKey ?? null,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: 0,
    timeout: options.timeoutMs,
    logLevel: 'off',
  });
  const request = { signal: options.signal, maxRetries: 0 };
  if (body.stream) {
    const stream = await client.messages.create(
      { ...(body as unknown as Anthropic.MessageCreateParamsStreaming), stream: true },
      request,
    );
    const assembler = new AnthropicStreamAssembler();
    for await (const event of stream) {
      assembler.push(event);
      sink.event(event.type, event);
    }
    const message = assembler.finish();
    return {
      model: String(message.model ?? body.model),
      usage: anthropicUsage(AnthropicUsageSchema.parse(message.usage)),
    };
  }
  const message = await client.messages.create(
    { ...(body as unknown as Anthropic.MessageCreateParamsNonStreaming), stream: false },
    request,
  );
  sink.json(message);
  return { model: message.model, usage: anthropicUsage(AnthropicUsageSchema.parse(message.usage)) };
}

/**
 * A chat-completions call on the worker's behalf. A streamed call is sent upstream with
 * `stream_options.include_usage`, so its last chunk carries the usage the gateway meters.
 */
export async function forwardChatCompletions(
  body: RequestBody,
  options: UpstreamOptions,
  sink: GatewaySink,
): Promise<ForwardedCall> {
  const client = new OpenAI({
    apiKey: options.apiKey || 'unused',
    ...(options.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    adminAPIKey: null,
    organization: null,
    project: null,
    maxRetries: 0,
    timeout: options.timeoutMs,
    logLevel: 'off',
  });
  const request = { signal: options.signal, maxRetries: 0 };
  if (body.stream) {
    const params = body as unknown as OpenAI.ChatCompletionCreateParamsStreaming;
    const stream = await client.chat.completions.create(
      { ...params, stream: true, stream_options: { ...params.stream_options, include_usage: true } },
      request,
    );
    let usage: unknown;
    let model = body.model;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      if (chunk.model) model = chunk.model;
      sink.event(undefined, chunk);
    }
    sink.event(undefined, '[DONE]');
    return { model, usage: chatCompletionUsage(ChatCompletionUsageSchema.parse(usage)) };
  }
  const completion = await client.chat.completions.create(
    { ...(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming), stream: false },
    request,
  );
  sink.json(completion);
  return {
    model: completion.model ?? body.model,
    usage: chatCompletionUsage(ChatCompletionUsageSchema.parse(completion.usage)),
  };
}

/** An upstream failure as the gateway answers it: the provider's status, error body and retry hints. */
interface UpstreamAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

const RETRY_HEADERS = ['retry-after', 'retry-after-ms', 'x-should-retry'];

/**
 * What the worker's SDK should see for an upstream failure: the provider's own answer when
 * there was one (so the worker's retry policy reads the same status and hints), 502 when
 * nothing answered. The message never carries the request (and so never the key).
 */
export function upstreamAnswer(err: unknown, protocol: GatewayProtocol): UpstreamAnswer {
  const status = (err as { status?: unknown })?.status;
  if (typeof status === 'number') {
    const headers: Record<string, string> = {};
    const from = (err as { headers?: { get?: (n: string) => string | null } }).headers;
    for (const name of RETRY_HEADERS) {
      const value = typeof from?.get === 'function' ? from.get(name) : null;
      if (value) headers[name] = value;
    }
    // The Anthropic SDK keeps the whole error body; the OpenAI SDK keeps its inner `error`.
    const error = (err as { error?: unknown }).error ?? {};
    return { status, body: protocol === 'openai' ? { error } : error, headers };
  }
  return {
    status: 502,
    body: gatewayErrorBody(protocol, 'api_error', 'the model provider did not answer the gateway'),
    headers: {},
  };
}

/** The two protocols the gateway speaks: the Messages API and chat completions. */
export type GatewayProtocol = 'anthropic' | 'openai';

/** An error body in the protocol's own shape, so the worker's SDK reads its type and message. */
export function gatewayErrorBody(protocol: GatewayProtocol, type: string, message: string): unknown {
  return protocol === 'anthropic'
    ? { type: 'error', error: { type, message } }
    : { error: { type, message, code: type } };
}
