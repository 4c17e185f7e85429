import { describe, expect, it } from 'vitest';
import { fromAnthropicMessage } from './anthropic-message.ts';
import { AnthropicStreamAssembler } from './anthropic-stream-assembler.ts';
import { UpstreamProtocolError } from './classify-failure.ts';
import { anthropicStream, type FixtureMessage } from './testing/anthropic-fixtures.ts';

const MESSAGE: FixtureMessage = {
  content: [
    { type: 'thinking', thinking: 'plan', signature: 'sig' },
    { type: 'text', text: 'Editing two files now, carefully.' },
    { type: 'tool_use', id: 'toolu_1', name: 'edit_file', input: { path: 'a.ts', old: 'x', new: 'y\n"quoted"' } },
    { type: 'tool_use', id: 'toolu_2', name: 'run_check', input: {} },
  ],
  stop_reason: 'tool_use',
  usage: { input_tokens: 10, output_tokens: 99, cache_read_input_tokens: 5, cache_creation_input_tokens: 7 },
};

function assemble(events: Array<{ data: unknown }>) {
  const a = new AnthropicStreamAssembler();
  for (const e of events) a.push(e.data);
  return a.finish();
}

describe('AnthropicStreamAssembler', () => {
  it('rebuilds the same reply the non-streaming call returns', () => {
    const streamed = fromAnthropicMessage(assemble(anthropicStream(MESSAGE)));
    expect(streamed.response.content).toEqual(MESSAGE.content.slice(1));
    expect(streamed.response.usage).toEqual({
      inputTokens: 10,
      outputTokens: 99,
      cacheReadTokens: 5,
      cacheWriteTokens: 7,
    });
    expect(streamed.response.stopReason).toBe('tool_use');
    expect(streamed.raw[0]).toEqual({ type: 'thinking', thinking: 'plan', signature: 'sig' });
  });

  it('ignores pings and unknown events', () => {
    const events = anthropicStream(MESSAGE);
    events.splice(3, 0, { data: { type: 'ping' } }, { data: { type: 'future_event', x: 1 } });
    expect(fromAnthropicMessage(assemble(events)).response.content).toHaveLength(3);
  });

  it.each([
    { name: 'no message_stop', cut: (e: unknown[]) => e.slice(0, -1), reason: 'connection' },
    { name: 'nothing at all', cut: () => [], reason: 'connection' },
    { name: 'a block before message_start', cut: (e: unknown[]) => e.slice(2), reason: 'invalid_response' },
  ])('fails on $name', ({ cut, reason }) => {
    const events = cut(anthropicStream(MESSAGE)) as Array<{ data: unknown }>;
    let err: unknown;
    try {
      assemble(events);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UpstreamProtocolError);
    expect((err as UpstreamProtocolError).reason).toBe(reason);
  });
});
