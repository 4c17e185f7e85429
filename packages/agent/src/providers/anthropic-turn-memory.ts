import type Anthropic from '@anthropic-ai/sdk';
import type { TextBlock, ToolUseBlock } from '../model-provider.ts';

type AssistantBlockParam =
  | Anthropic.TextBlockParam
  | Anthropic.ToolUseBlockParam
  | Anthropic.ThinkingBlockParam
  | Anthropic.RedactedThinkingBlockParam;

function canonical(blocks: ReadonlyArray<TextBlock | ToolUseBlock>): string {
  return JSON.stringify(
    blocks.map((b) => (b.type === 'text' ? ['text', b.text] : ['tool_use', b.id, b.name, b.input])),
  );
}

/**
 * Claude models with adaptive thinking (on by default from Sonnet 5) return `thinking`
 * blocks with a signature before their tool calls, and the API wants that assistant
 * turn sent back exactly as it came when the tool results follow. Our message shape has
 * no thinking blocks, so the provider keeps each tool-using turn as the API returned it,
 * keyed by its tool_use ids, and sends that back when the loop replays the same turn.
 * A turn the loop changed (or one from before a restart) is sent as the loop has it.
 */
export class AnthropicTurnMemory {
  readonly #turns = new Map<string, { key: string; blocks: AssistantBlockParam[] }>();

  /** 512 turns is far beyond one operation's turn budget; the oldest go first. */
  constructor(readonly capacity: number = 512) {}

  remember(visible: ReadonlyArray<TextBlock | ToolUseBlock>, raw: AssistantBlockParam[]): void {
    const ids = visible.filter((b): b is ToolUseBlock => b.type === 'tool_use').map((b) => b.id);
    if (ids.length === 0 || !raw.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking')) return;
    const entry = { key: canonical(visible), blocks: raw };
    for (const id of ids) {
      this.#turns.delete(id);
      this.#turns.set(id, entry);
    }
    while (this.#turns.size > this.capacity) {
      const oldest = this.#turns.keys().next().value;
      if (oldest === undefined) break;
      this.#turns.delete(oldest);
    }
  }

  recall(visible: ReadonlyArray<TextBlock | ToolUseBlock>): AssistantBlockParam[] | undefined {
    const first = visible.find((b): b is ToolUseBlock => b.type === 'tool_use');
    if (!first) return undefined;
    const entry = this.#turns.get(first.id);
    return entry && entry.key === canonical(visible) ? entry.blocks : undefined;
  }
}

export type { AssistantBlockParam };
