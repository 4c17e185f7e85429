import type OpenAI from 'openai';
import type { ModelMessage, ModelRequest } from '../model-provider.ts';

type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;

/** OpenAI has no is_error flag on tool messages; the model reads this prefix instead. */
const TOOL_ERROR_PREFIX = 'ERROR: ';

function toChatMessages(message: ModelMessage): ChatMessage[] {
  if (message.role === 'assistant') {
    const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    const calls = message.content.flatMap((b) =>
      b.type === 'tool_use'
        ? [
            {
              id: b.id,
              type: 'function' as const,
              // A string input is a model's unparseable arguments, passed back as they came.
              function: {
                name: b.name,
                arguments: typeof b.input === 'string' ? b.input : JSON.stringify(b.input ?? {}),
              },
            },
          ]
        : [],
    );
    if (text === '' && calls.length === 0) return [];
    return [
      { role: 'assistant', content: text === '' ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
    ];
  }
  // Tool messages must directly follow the assistant message that made the calls, so
  // results go first and any user text of the same turn becomes a user message after them.
  const out: ChatMessage[] = [];
  const texts: string[] = [];
  for (const block of message.content) {
    if (block.type === 'tool_result') {
      out.push({
        role: 'tool',
        tool_call_id: block.toolUseId,
        content: block.isError ? `${TOOL_ERROR_PREFIX}${block.content}` : block.content,
      });
    } else if (block.type === 'text' && block.text !== '') {
      texts.push(block.text);
    }
  }
  if (texts.length > 0) out.push({ role: 'user', content: texts.join('\n\n') });
  return out;
}

interface OpenAIParamsOptions {
  model: string;
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
}

export function buildOpenAIParams(
  request: ModelRequest,
  options: OpenAIParamsOptions,
): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const messages: ChatMessage[] = [
    ...(request.system !== '' ? [{ role: 'system' as const, content: request.system }] : []),
    ...request.messages.flatMap(toChatMessages),
  ];
  // `tools: []` is rejected by OpenAI; text-edit mode sends no tools at all.
  const tools: OpenAI.Chat.ChatCompletionTool[] = request.tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }));
  return {
    model: options.model,
    messages,
    [options.maxTokensField]: request.maxTokens,
    ...(tools.length > 0 ? { tools } : {}),
  };
}
