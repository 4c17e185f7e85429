import { UpstreamProtocolError } from './classify-failure.ts';

type Json = Record<string, unknown>;

function obj(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Folds the Messages API event stream (message_start, content_block_start/delta/stop,
 * message_delta, message_stop) back into the message object the non-streaming call
 * returns, so both modes share one validation and mapping (`fromAnthropicMessage`).
 * Tool input arrives as `input_json_delta` fragments and is parsed once its block stops.
 */
export class AnthropicStreamAssembler {
  #message: Json | undefined;
  readonly #blocks: Array<Json | undefined> = [];
  readonly #json = new Map<number, string>();
  #stopped = false;

  push(event: unknown): void {
    const e = obj(event);
    const type = str(e?.type);
    if (!e || type === 'ping') return;
    if (type === 'message_start') {
      const message = obj(e.message);
      if (!message) throw new UpstreamProtocolError('invalid_response', 'message_start without a message');
      this.#message = { ...message, usage: { ...obj(message.usage) } };
      return;
    }
    if (!type.startsWith('message_') && !type.startsWith('content_block_')) return;
    if (!this.#message) throw new UpstreamProtocolError('invalid_response', `${type} before message_start`);
    const index = typeof e.index === 'number' ? e.index : -1;
    switch (type) {
      case 'content_block_start': {
        const block = obj(e.content_block);
        if (!block || index < 0)
          throw new UpstreamProtocolError('invalid_response', 'content_block_start without a block');
        this.#blocks[index] = { ...block };
        if (block.type === 'tool_use') this.#json.set(index, '');
        return;
      }
      case 'content_block_delta':
        this.#applyDelta(index, obj(e.delta));
        return;
      case 'content_block_stop':
        this.#closeBlock(index);
        return;
      case 'message_delta': {
        const delta = obj(e.delta);
        if (delta && 'stop_reason' in delta) this.#message.stop_reason = delta.stop_reason;
        // message_delta usage is cumulative; null fields mean "unchanged".
        const usage = obj(this.#message.usage) ?? {};
        for (const [k, v] of Object.entries(obj(e.usage) ?? {})) if (v !== null && v !== undefined) usage[k] = v;
        this.#message.usage = usage;
        return;
      }
      case 'message_stop':
        this.#stopped = true;
        return;
      default:
        return;
    }
  }

  #applyDelta(index: number, delta: Json | undefined): void {
    const block = this.#blocks[index];
    if (!block || !delta)
      throw new UpstreamProtocolError('invalid_response', `delta for unknown content block ${index}`);
    switch (delta.type) {
      case 'text_delta':
        block.text = str(block.text) + str(delta.text);
        return;
      case 'input_json_delta':
        this.#json.set(index, (this.#json.get(index) ?? '') + str(delta.partial_json));
        return;
      case 'thinking_delta':
        block.thinking = str(block.thinking) + str(delta.thinking);
        return;
      case 'signature_delta':
        block.signature = str(delta.signature);
        return;
      default:
        // citations and future delta kinds carry nothing we map.
        return;
    }
  }

  #closeBlock(index: number): void {
    const block = this.#blocks[index];
    const json = this.#json.get(index);
    if (!block || json === undefined) return;
    this.#json.delete(index);
    if (json.trim() === '') {
      block.input = {};
      return;
    }
    try {
      block.input = JSON.parse(json);
    } catch {
      // Cut off by max_tokens: hand the fragment on, the tool's input check reports it.
      block.input = json;
    }
  }

  /** The assembled message; throws a retryable error when the stream ended early. */
  finish(): Json {
    if (!this.#message || !this.#stopped) {
      throw new UpstreamProtocolError('connection', 'stream ended before message_stop');
    }
    for (const index of [...this.#json.keys()]) this.#closeBlock(index);
    return { ...this.#message, content: this.#blocks.filter((b): b is Json => b !== undefined) };
  }
}
