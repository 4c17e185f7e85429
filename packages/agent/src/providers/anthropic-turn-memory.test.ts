import { describe, expect, it } from 'vitest';
import type { TextBlock, ToolUseBlock } from '../model-provider.ts';
import { AnthropicTurnMemory, type AssistantBlockParam } from './anthropic-turn-memory.ts';

function turn(id: string): { visible: Array<TextBlock | ToolUseBlock>; raw: AssistantBlockParam[] } {
  const call: ToolUseBlock = { type: 'tool_use', id, name: 'read_file', input: { path: `${id}.ts` } };
  return {
    visible: [call],
    raw: [{ type: 'thinking', thinking: `why ${id}`, signature: `sig-${id}` }, { ...call }],
  };
}

describe('AnthropicTurnMemory', () => {
  it('returns the raw turn only for the same visible content', () => {
    const memory = new AnthropicTurnMemory();
    const t = turn('a');
    memory.remember(t.visible, t.raw);
    expect(memory.recall(t.visible)).toBe(t.raw);
    // The loop changed the turn (e.g. trimmed a tool input): send what the loop has.
    expect(
      memory.recall([{ type: 'tool_use', id: 'a', name: 'read_file', input: { path: 'other.ts' } }]),
    ).toBeUndefined();
    expect(memory.recall([{ type: 'text', text: 'no tools' }])).toBeUndefined();
  });

  it('keeps nothing for turns without thinking blocks', () => {
    const memory = new AnthropicTurnMemory();
    const t = turn('b');
    memory.remember(t.visible, t.raw.slice(1));
    expect(memory.recall(t.visible)).toBeUndefined();
  });

  it('forgets the oldest turns past its capacity', () => {
    const memory = new AnthropicTurnMemory(2);
    const [a, b, c] = [turn('a'), turn('b'), turn('c')];
    for (const t of [a, b, c]) memory.remember(t.visible, t.raw);
    expect(memory.recall(a.visible)).toBeUndefined();
    expect(memory.recall(b.visible)).toBe(b.raw);
    expect(memory.recall(c.visible)).toBe(c.raw);
  });
});
