import type { ModelProvider, ModelRequest, ModelResponse, TextBlock, ToolUseBlock } from '@pullwright/agent';

export type Reply = (TextBlock | ToolUseBlock)[];
export type Turn = Reply | ((request: ModelRequest) => Promise<Reply>);

export const tool = (name: string, input: Record<string, unknown>): Reply => [
  { type: 'tool_use', id: `t${Math.random().toString(36).slice(2)}`, name, input },
];
export const text = (t: string): Reply => [{ type: 'text', text: t }];

/** A model that plays turns in order and keeps every request it was sent. */
export class ScriptedModel implements ModelProvider {
  readonly name = 'scripted';
  readonly requests: ModelRequest[] = [];
  #next = 0;

  constructor(private readonly turns: Turn[]) {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const turn = this.turns[this.#next++] ?? text('No more turns.');
    const content = typeof turn === 'function' ? await turn(request) : turn;
    return {
      content,
      stopReason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      usage: { inputTokens: 10, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
      model: 'replay:gates',
    };
  }
}
