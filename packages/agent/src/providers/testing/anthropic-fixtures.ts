import type { SseEvent } from './scripted-server.ts';

export type FixtureBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'thinking'; thinking: string; signature: string };

export interface FixtureMessage {
  content: FixtureBlock[];
  stop_reason: 'end_turn' | 'tool_use' | 'max_tokens';
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
  };
  model?: string;
}

let seq = 0;

/** A Messages API response body, as `POST /v1/messages` returns it without streaming. */
export function anthropicMessage(m: FixtureMessage): Record<string, unknown> {
  seq += 1;
  return {
    id: `msg_fixture_${seq}`,
    type: 'message',
    role: 'assistant',
    model: m.model ?? 'claude-test',
    content: m.content,
    stop_reason: m.stop_reason,
    stop_sequence: null,
    usage: {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
      ...m.usage,
    },
  };
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [''];
}

/**
 * The event sequence the API streams for that message: message_start (input usage),
 * per block a start, deltas (text in pieces, tool input as input_json_delta fragments
 * that are not valid JSON on their own), a stop; a ping; message_delta with the stop
 * reason and cumulative output usage; message_stop.
 */
export function anthropicStream(m: FixtureMessage): SseEvent[] {
  const body = anthropicMessage(m);
  const usage = body.usage as Record<string, number>;
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: { ...body, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
      },
    },
    { event: 'ping', data: { type: 'ping' } },
  ];
  m.content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      });
      for (const piece of chunks(block.text, 7)) {
        events.push({
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } },
        });
      }
    } else if (block.type === 'tool_use') {
      events.push({
        event: 'content_block_start',
        data: {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        },
      });
      for (const piece of chunks(JSON.stringify(block.input), 5)) {
        events.push({
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } },
        });
      }
    } else {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } },
      });
      events.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } },
      });
      events.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } },
      });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: m.stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

export function anthropicError(type: string, message: string): Record<string, unknown> {
  return { type: 'error', error: { type, message } };
}
