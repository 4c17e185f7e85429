/**
 * The one shape every model provider speaks. It mirrors the Anthropic Messages API
 * (content blocks with tool_use / tool_result) and maps one-to-one onto OpenAI-style
 * tool calling (assistant `tool_calls` + `role: tool` messages).
 */
export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock {
  type: 'tool_result';
  toolUseId: string;
  content: string;
  isError?: boolean;
}

export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

export interface ModelMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the input object. */
  inputSchema: Record<string, unknown>;
}

export interface ModelRequest {
  system: string;
  messages: ModelMessage[];
  tools: ToolSpec[];
  maxTokens: number;
  signal?: AbortSignal;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal';

export interface ModelResponse {
  content: Array<TextBlock | ToolUseBlock>;
  stopReason: StopReason;
  usage: ModelUsage;
  model: string;
}

export interface ModelProvider {
  readonly name: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
  /**
   * A resumed solve skips the calls its journal recorded: a provider whose answers are
   * positional (a recording) moves past them, so the next call gets the next recorded turn.
   */
  resumeAfter?(modelCalls: number): void;
}

export function zeroUsage(): ModelUsage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}
