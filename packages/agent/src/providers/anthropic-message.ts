import { z } from 'zod';
import type { ModelResponse, ModelUsage, StopReason, TextBlock, ToolUseBlock } from '../model-provider.ts';
import type { AssistantBlockParam } from './anthropic-turn-memory.ts';
import { UpstreamProtocolError } from './classify-failure.ts';

const count = z.number().int().nonnegative().nullish();

/** Only what we read; everything else (ids, container, diagnostics…) may change freely. */
const AnthropicMessageSchema = z.object({
  model: z.string(),
  content: z.array(z.looseObject({ type: z.string() })),
  stop_reason: z.string().nullish(),
  usage: z.looseObject({
    input_tokens: count,
    output_tokens: count,
    cache_read_input_tokens: count,
    cache_creation_input_tokens: count,
  }),
});

const TextSchema = z.object({ type: z.literal('text'), text: z.string() });
const ToolUseSchema = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
});
const ThinkingSchema = z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() });
const RedactedThinkingSchema = z.object({ type: z.literal('redacted_thinking'), data: z.string() });

function stopReason(value: string | null | undefined): StopReason {
  switch (value) {
    case 'tool_use':
    case 'max_tokens':
    case 'stop_sequence':
    case 'refusal':
      return value;
    case 'model_context_window_exceeded':
      return 'max_tokens';
    default:
      // end_turn, pause_turn (server tools only, which we never send) and a missing value.
      return 'end_turn';
  }
}

function parseBlock(block: { type: string }): { visible?: TextBlock | ToolUseBlock; raw?: AssistantBlockParam } {
  const schema = {
    text: TextSchema,
    tool_use: ToolUseSchema,
    thinking: ThinkingSchema,
    redacted_thinking: RedactedThinkingSchema,
  }[block.type];
  // Server-tool and other block kinds are not ours to interpret.
  if (!schema) return {};
  const parsed = schema.safeParse(block);
  if (!parsed.success) throw new UpstreamProtocolError('invalid_response', `malformed ${block.type} block in response`);
  const b = parsed.data;
  switch (b.type) {
    case 'text':
      return { visible: { type: 'text', text: b.text }, raw: { type: 'text', text: b.text } };
    case 'tool_use':
      return {
        visible: { type: 'tool_use', id: b.id, name: b.name, input: b.input },
        raw: { type: 'tool_use', id: b.id, name: b.name, input: b.input },
      };
    case 'thinking':
      return { raw: { type: 'thinking', thinking: b.thinking, signature: b.signature } };
    case 'redacted_thinking':
      return { raw: { type: 'redacted_thinking', data: b.data } };
  }
}

export interface AnthropicReply {
  response: ModelResponse;
  /** The assistant turn as the API returned it (thinking included), for `AnthropicTurnMemory`. */
  raw: AssistantBlockParam[];
}

/** Validates a Messages API reply (parsed JSON or an assembled stream) and maps it to ours. */
export function fromAnthropicMessage(body: unknown): AnthropicReply {
  const parsed = AnthropicMessageSchema.safeParse(body);
  if (!parsed.success) {
    throw new UpstreamProtocolError(
      'invalid_response',
      `response is not a Messages API message: ${parsed.error.issues[0]?.message ?? ''}`,
    );
  }
  const message = parsed.data;
  const content: Array<TextBlock | ToolUseBlock> = [];
  const raw: AssistantBlockParam[] = [];
  for (const block of message.content) {
    const { visible, raw: kept } = parseBlock(block);
    if (visible) content.push(visible);
    if (kept) raw.push(kept);
  }
  return {
    response: {
      content,
      stopReason: stopReason(message.stop_reason),
      usage: anthropicUsage(message.usage),
      model: message.model,
    },
    raw,
  };
}

/** A Messages API `usage` object in our convention; the model gateway meters with the same mapping. */
export function anthropicUsage(u: z.infer<typeof AnthropicMessageSchema>['usage'] | undefined): ModelUsage {
  return {
    inputTokens: u?.input_tokens ?? 0,
    outputTokens: u?.output_tokens ?? 0,
    cacheReadTokens: u?.cache_read_input_tokens ?? 0,
    cacheWriteTokens: u?.cache_creation_input_tokens ?? 0,
  };
}

/** The usage of a Messages API reply as the gateway sees it (only `usage` is read). */
export const AnthropicUsageSchema = AnthropicMessageSchema.shape.usage;
