interface FixtureToolCall {
  id?: string;
  name: string;
  /** Sent verbatim as the `arguments` string. */
  arguments: string;
}

interface FixtureCompletion {
  content?: string | null;
  toolCalls?: FixtureToolCall[];
  finishReason: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number; cache_write_tokens?: number };
  model?: string;
}

let seq = 0;

/** A chat-completions response body, as `POST /v1/chat/completions` returns it. */
export function chatCompletion(c: FixtureCompletion): Record<string, unknown> {
  seq += 1;
  const calls = c.toolCalls?.map((t) => ({
    ...(t.id === undefined ? {} : { id: t.id }),
    type: 'function',
    function: { name: t.name, arguments: t.arguments },
  }));
  return {
    id: `chatcmpl-fixture-${seq}`,
    object: 'chat.completion',
    created: 1_790_000_000,
    model: c.model ?? 'gpt-test',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: c.content ?? null,
          refusal: null,
          ...(calls ? { tool_calls: calls } : {}),
        },
        finish_reason: c.finishReason,
        logprobs: null,
      },
    ],
    ...(c.usage
      ? {
          usage: {
            prompt_tokens: c.usage.prompt_tokens,
            completion_tokens: c.usage.completion_tokens,
            total_tokens: c.usage.prompt_tokens + c.usage.completion_tokens,
            prompt_tokens_details: {
              cached_tokens: c.usage.cached_tokens ?? 0,
              ...(c.usage.cache_write_tokens === undefined ? {} : { cache_write_tokens: c.usage.cache_write_tokens }),
            },
          },
        }
      : {}),
  };
}

export function openaiError(type: string, message: string, code: string | null = null): Record<string, unknown> {
  return { error: { message, type, param: null, code } };
}
