import type { ModelProvider, ModelRequest, ModelResponse, TextBlock, ToolUseBlock } from '../../model-provider.ts';

export type ScriptedReply = Array<TextBlock | ToolUseBlock>;

let ids = 0;
/** A reply calling one tool. */
export const toolCall = (name: string, input: Record<string, unknown>): ScriptedReply => [
  { type: 'tool_use', id: `t${++ids}`, name, input },
];
/** A reply in words (or JSON), ending the turn. */
export const textReply = (text: string): ScriptedReply => [{ type: 'text', text }];

/**
 * An in-process model that plays its replies in order and keeps every request, with the
 * role it was for (read from the system prompt's `Role:` line).
 */
export class ScriptedModel implements ModelProvider {
  readonly name = 'scripted';
  readonly calls: { role: string; request: ModelRequest }[] = [];
  #next = 0;

  constructor(
    private readonly replies: ScriptedReply[],
    private readonly model = 'scripted',
  ) {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const role = /Role: (\w+)/.exec(request.system)?.[1] ?? '?';
    const { signal: _signal, ...copy } = request;
    this.calls.push({ role, request: structuredClone(copy) });
    const content = this.replies[this.#next++] ?? textReply('No more turns.');
    return {
      content,
      stopReason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
      model: this.model,
    };
  }
}
