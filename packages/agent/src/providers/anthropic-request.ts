import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, ModelMessage, ModelRequest, TextBlock, ToolUseBlock } from '../model-provider.ts';
import type { AnthropicTurnMemory } from './anthropic-turn-memory.ts';

const EPHEMERAL: Anthropic.CacheControlEphemeral = { type: 'ephemeral' };

type UserBlockParam = Anthropic.TextBlockParam | Anthropic.ToolResultBlockParam;

function isVisible(block: ContentBlock): block is TextBlock | ToolUseBlock {
  return block.type === 'text' || block.type === 'tool_use';
}

function userContent(blocks: ContentBlock[]): UserBlockParam[] {
  const results: Anthropic.ToolResultBlockParam[] = [];
  const texts: Anthropic.TextBlockParam[] = [];
  for (const block of blocks) {
    if (block.type === 'tool_result') {
      results.push({
        type: 'tool_result',
        tool_use_id: block.toolUseId,
        // An empty string is rejected as an empty text block; a placeholder keeps the pairing.
        content: block.content === '' ? '(no output)' : block.content,
        ...(block.isError ? { is_error: true } : {}),
      });
    } else if (block.type === 'text' && block.text !== '') {
      texts.push({ type: 'text', text: block.text });
    }
  }
  // The API requires tool_result blocks before any text in the same user turn.
  return [...results, ...texts];
}

function assistantContent(blocks: ContentBlock[], memory: AnthropicTurnMemory): Anthropic.ContentBlockParam[] {
  const visible = blocks.filter(isVisible);
  const remembered = memory.recall(visible);
  if (remembered) return remembered;
  return visible.flatMap((b): Anthropic.ContentBlockParam[] => {
    if (b.type === 'text') return b.text === '' ? [] : [{ type: 'text', text: b.text }];
    return [{ type: 'tool_use', id: b.id, name: b.name, input: b.input }];
  });
}

function toMessageParam(message: ModelMessage, memory: AnthropicTurnMemory): Anthropic.MessageParam | undefined {
  const content = message.role === 'user' ? userContent(message.content) : assistantContent(message.content, memory);
  // Empty turns are invalid; dropping one merges its neighbours, which the API allows.
  return content.length === 0 ? undefined : { role: message.role, content };
}

function markLastBlock(message: Anthropic.MessageParam): void {
  if (typeof message.content === 'string') return;
  const last = message.content.at(-1);
  if (last && (last.type === 'text' || last.type === 'tool_result' || last.type === 'tool_use')) {
    last.cache_control = EPHEMERAL;
  }
}

interface AnthropicParamsOptions {
  model: string;
  promptCaching: boolean;
  memory: AnthropicTurnMemory;
}

/**
 * Maps our request onto the Messages API. With prompt caching on, three of the four
 * allowed cache breakpoints are used: the last tool (tools are the first thing the
 * cache hashes, shared by every role that has the same tools), the system prompt (the
 * stable prefix including the repo map), and the last block of the conversation, so the
 * next turn of the loop reads the whole history so far from the cache.
 */
export function buildAnthropicParams(
  request: ModelRequest,
  options: AnthropicParamsOptions,
): Anthropic.MessageCreateParamsNonStreaming {
  const caching = options.promptCaching;
  const messages = request.messages
    .map((m) => toMessageParam(m, options.memory))
    .filter((m): m is Anthropic.MessageParam => m !== undefined);
  const last = messages.at(-1);
  if (caching && last) {
    // A fresh copy: remembered turns are shared and must not carry a marker into later requests.
    const copy = {
      ...last,
      content: typeof last.content === 'string' ? last.content : last.content.map((b) => ({ ...b })),
    };
    messages[messages.length - 1] = copy as Anthropic.MessageParam;
    markLastBlock(copy as Anthropic.MessageParam);
  }
  const tools: Anthropic.Tool[] = request.tools.map((t, i) => ({
    name: t.name,
    description: t.description,
    input_schema: t.inputSchema as Anthropic.Tool.InputSchema,
    ...(caching && i === request.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
  }));
  return {
    model: options.model,
    max_tokens: request.maxTokens,
    messages,
    ...(request.system !== ''
      ? { system: [{ type: 'text', text: request.system, ...(caching ? { cache_control: EPHEMERAL } : {}) }] }
      : {}),
    ...(tools.length > 0 ? { tools } : {}),
  };
}
