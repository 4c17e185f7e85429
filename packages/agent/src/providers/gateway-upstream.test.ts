import { afterEach, describe, expect, it } from 'vitest';
import {
  forwardAnthropicMessages,
  forwardChatCompletions,
  type GatewaySink,
  upstreamAnswer,
} from './gateway-upstream.ts';
import {
  anthropicError,
  anthropicMessage,
  anthropicStream,
  chatCompletion,
  json,
  type ScriptedServer,
  sse,
  startScriptedServer,
} from './testing/index.ts';

const KEY = 'sk-ant-api03-upstreamUPSTREAMupstream0123456789';

/** What the gateway wrote back to the worker. */
function recordingSink() {
  const sent: { json?: unknown; events: [string | undefined, unknown][] } = { events: [] };
  const sink: GatewaySink = {
    json: (body) => {
      sent.json = body;
    },
    event: (name, data) => {
      sent.events.push([name, data]);
    },
  };
  return { sent, sink };
}

const usage = { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 50, cache_creation_input_tokens: 5 };
const message = {
  content: [{ type: 'text' as const, text: 'hi' }],
  stop_reason: 'end_turn' as const,
  usage,
  model: 'claude-x',
};

describe('the gateway’s upstream calls', () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const options = (url: string) => ({
    apiKey: KEY,
    baseURL: url,
    timeoutMs: 10_000,
    signal: new AbortController().signal,
  });

  it('streams a Messages API reply event by event and meters it as the worker’s provider would', async () => {
    server = await startScriptedServer([sse(anthropicStream(message))]);
    const { sent, sink } = recordingSink();
    const call = await forwardAnthropicMessages(
      { model: 'claude-x', stream: true, max_tokens: 10, messages: [] },
      options(server.url),
      sink,
    );
    expect(call).toEqual({
      model: 'claude-x',
      usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 50, cacheWriteTokens: 5 },
    });
    // Every event but the keep-alive pings, which the SDK drops (the gateway writes as it reads).
    const events = anthropicStream(message).filter((e) => e.event !== 'ping');
    expect(sent.events.map(([name]) => name)).toEqual(events.map((e) => e.event));
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('passes a whole Messages API reply through', async () => {
    server = await startScriptedServer([json(anthropicMessage(message))]);
    const { sent, sink } = recordingSink();
    const call = await forwardAnthropicMessages(
      { model: 'claude-x', max_tokens: 10, messages: [] },
      options(server.url),
      sink,
    );
    expect(sent.json).toMatchObject({ model: 'claude-x', usage });
    expect(call.usage.inputTokens).toBe(100);
  });

  it('meters a chat completion (cached tokens out of the input count), whole or streamed with its usage chunk', async () => {
    const completion = chatCompletion({
      content: 'hi',
      finishReason: 'stop',
      usage: { prompt_tokens: 300, completion_tokens: 40, cached_tokens: 100 },
      model: 'gpt-x',
    });
    const chunk = (extra: Record<string, unknown>) => ({
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-x',
      choices: [],
      ...extra,
    });
    server = await startScriptedServer([
      json(completion),
      sse([
        { data: chunk({ choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }] }) },
        { data: chunk({ usage: completion.usage }) },
        { data: '[DONE]' },
      ]),
    ]);
    const expected = {
      model: 'gpt-x',
      usage: { inputTokens: 200, outputTokens: 40, cacheReadTokens: 100, cacheWriteTokens: 0 },
    };
    const whole = recordingSink();
    expect(await forwardChatCompletions({ model: 'gpt-x', messages: [] }, options(server.url), whole.sink)).toEqual(
      expected,
    );
    const streamed = recordingSink();
    expect(
      await forwardChatCompletions({ model: 'gpt-x', stream: true, messages: [] }, options(server.url), streamed.sink),
    ).toEqual(expected);
    expect(streamed.sent.events.at(-1)).toEqual([undefined, '[DONE]']);
    // Asked for the usage chunk the meter needs.
    expect(server.requests[1]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('hands the provider’s refusal back in its own shape, with its retry hints', async () => {
    server = await startScriptedServer([
      json(anthropicError('rate_limit_error', 'slow down'), 429, { 'retry-after': '3' }),
    ]);
    const failure = await forwardAnthropicMessages(
      { model: 'claude-x', max_tokens: 10, messages: [] },
      options(server.url),
      recordingSink().sink,
    ).catch((err: unknown) => err);
    expect(upstreamAnswer(failure, 'anthropic')).toEqual({
      status: 429,
      body: anthropicError('rate_limit_error', 'slow down'),
      headers: { 'retry-after': '3' },
    });
    // Nothing answered: a 502 in the protocol's shape, never the request (or its key).
    expect(upstreamAnswer(new TypeError('fetch failed'), 'openai')).toMatchObject({
      status: 502,
      body: { error: { type: 'api_error' } },
    });
  });
});
