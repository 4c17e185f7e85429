import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ModelResponse, ModelUsage, StopReason, TextBlock, ToolUseBlock } from '../model-provider.ts';
import { UpstreamProtocolError } from './classify-failure.ts';

const count = z.number().nonnegative().nullish();

/**
 * What we read of a chat completion. Lenient where local servers differ from OpenAI
 * (llama.cpp and Ollama have sent tool calls without ids, `usage` may be missing).
 */
const CompletionSchema = z.object({
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullish(),
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string().nullish(),
                function: z.object({ name: z.string().min(1), arguments: z.string().nullish() }),
              }),
            )
            .nullish(),
        }),
      }),
    )
    .min(1),
  usage: z
    .object({
      prompt_tokens: count,
      completion_tokens: count,
      prompt_tokens_details: z.object({ cached_tokens: count, cache_write_tokens: count }).nullish(),
    })
    .nullish(),
});

function parseArguments(raw: string | null | undefined): unknown {
  if (raw === null || raw === undefined || raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    // Weaker local models emit broken JSON; the tool's input check tells the model so.
    return raw;
  }
}

function stopReason(finish: string | null | undefined, hasCalls: boolean): StopReason {
  if (finish === 'length') return 'max_tokens';
  if (finish === 'content_filter') return 'refusal';
  // Some local servers report "stop" for a turn that ends in tool calls.
  if (hasCalls || finish === 'tool_calls' || finish === 'function_call') return 'tool_use';
  return 'end_turn';
}

/**
 * Maps a chat completion to our response. Usage follows the Anthropic convention so one
 * price formula fits both: `inputTokens` excludes cached reads and writes, which OpenAI
 * counts inside `prompt_tokens`.
 */
export function fromChatCompletion(body: unknown, requestedModel: string): ModelResponse {
  const parsed = CompletionSchema.safeParse(body);
  if (!parsed.success) {
    throw new UpstreamProtocolError(
      'invalid_response',
      `response is not a chat completion: ${parsed.error.issues[0]?.message ?? ''}`,
    );
  }
  const completion = parsed.data;
  const choice = completion.choices[0]!;
  const content: Array<TextBlock | ToolUseBlock> = [];
  const text = choice.message.content ?? '';
  if (text !== '') content.push({ type: 'text', text });
  const refusal = choice.message.refusal ?? '';
  if (refusal !== '') content.push({ type: 'text', text: refusal });
  const calls = choice.message.tool_calls ?? [];
  calls.forEach((call, i) => {
    content.push({
      type: 'tool_use',
      id: call.id && call.id !== '' ? call.id : `call_${i}_${randomUUID().slice(0, 8)}`,
      name: call.function.name,
      input: parseArguments(call.function.arguments),
    });
  });
  return {
    content,
    stopReason: refusal !== '' ? 'refusal' : stopReason(choice.finish_reason, calls.length > 0),
    usage: chatCompletionUsage(completion.usage),
    model: completion.model ?? requestedModel,
  };
}

/** The usage of a chat completion (or its last streamed chunk) as the gateway sees it. */
export const ChatCompletionUsageSchema = CompletionSchema.shape.usage;

/** A chat completion's `usage` in our convention; the model gateway meters with the same mapping. */
export function chatCompletionUsage(usage: z.infer<typeof ChatCompletionUsageSchema>): ModelUsage {
  const prompt = usage?.prompt_tokens ?? 0;
  const cacheRead = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = usage?.prompt_tokens_details?.cache_write_tokens ?? 0;
  return {
    inputTokens: Math.max(0, prompt - cacheRead - cacheWrite),
    outputTokens: usage?.completion_tokens ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
}
