import { afterEach, describe, expect, it } from 'vitest';
import type { ModelMessage, ModelRequest, ToolSpec } from '../model-provider.ts';
import { AnthropicProvider, type AnthropicProviderOptions } from './anthropic-provider.ts';
import {
  anthropicError,
  anthropicMessage,
  anthropicStream,
  type FixtureMessage,
} from './testing/anthropic-fixtures.ts';
import { providerFailure, type Wire } from './testing/provider-failure.ts';
import {
  hang,
  json,
  type Responder,
  type ScriptedServer,
  sse,
  stallAfterHeaders,
  startScriptedServer,
} from './testing/scripted-server.ts';

const API_KEY = 'sk-ant-api03-TESTKEYdoNotLeak0123456789abcdefXYZ';

const TOOLS: ToolSpec[] = [
  {
    name: 'read_file',
    description: 'Read a file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'run_check',
    description: 'Run a check',
    inputSchema: { type: 'object', properties: { check: { type: 'string' } }, required: ['check'] },
  },
];

const TURN_1: FixtureMessage = {
  content: [
    { type: 'text', text: 'Let me look at the failing file first.' },
    {
      type: 'tool_use',
      id: 'toolu_01',
      name: 'read_file',
      input: { path: 'src/auth.ts', lines: { from: 40, to: 50 } },
    },
  ],
  stop_reason: 'tool_use',
  usage: { input_tokens: 120, output_tokens: 35, cache_creation_input_tokens: 2048, cache_read_input_tokens: 0 },
};

const TURN_2: FixtureMessage = {
  content: [{ type: 'text', text: 'The bug is a missing null check on line 45.' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 60, output_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 2048 },
};

let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function provider(script: Responder[], options: Partial<AnthropicProviderOptions> = {}) {
  server = await startScriptedServer(script);
  return new AnthropicProvider({
    apiKey: API_KEY,
    baseURL: server.url,
    model: 'claude-sonnet-5-5',
    stream: false,
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...options,
  });
}

function request(messages: ModelMessage[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: 'You are the coder. Repo map: src/auth.ts', messages, tools: TOOLS, maxTokens: 4096, ...extra };
}

const FIRST_USER: ModelMessage = { role: 'user', content: [{ type: 'text', text: 'Fix the TypeError in auth.ts:45' }] };

describe.each([
  { mode: 'json', stream: false, reply: (m: FixtureMessage) => json(anthropicMessage(m)) },
  { mode: 'sse', stream: true, reply: (m: FixtureMessage) => sse(anthropicStream(m)) },
])('AnthropicProvider two-turn tool use ($mode)', ({ stream, reply }) => {
  it('maps both turns and sends the request shape the Messages API expects', async () => {
    const p = await provider([reply(TURN_1), reply(TURN_2)], { stream });
    const first = await p.complete(request([FIRST_USER]));
    expect(first).toEqual({
      content: [
        { type: 'text', text: 'Let me look at the failing file first.' },
        {
          type: 'tool_use',
          id: 'toolu_01',
          name: 'read_file',
          input: { path: 'src/auth.ts', lines: { from: 40, to: 50 } },
        },
      ],
      stopReason: 'tool_use',
      usage: { inputTokens: 120, outputTokens: 35, cacheReadTokens: 0, cacheWriteTokens: 2048 },
      model: 'claude-test',
    });

    const history: ModelMessage[] = [
      FIRST_USER,
      { role: 'assistant', content: first.content },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Keep going.' },
          { type: 'tool_result', toolUseId: 'toolu_01', content: 'ENOENT: src/auth.ts', isError: true },
        ],
      },
    ];
    const second = await p.complete(request(history));
    expect(second.content).toEqual([{ type: 'text', text: 'The bug is a missing null check on line 45.' }]);
    expect(second.stopReason).toBe('end_turn');
    expect(second.usage).toEqual({ inputTokens: 60, outputTokens: 12, cacheReadTokens: 2048, cacheWriteTokens: 0 });

    const [r1, r2] = server!.requests;
    expect(r1?.method).toBe('POST');
    expect(r1?.path).toBe('/v1/messages');
    // SDK 1.x (API version 2026-10-21) sends the key as a bearer token, in a header, never in the URL.
    expect(r1?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(r1?.path).not.toContain(API_KEY);
    expect(r1?.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const body1: Wire = r1?.body;
    expect(body1.model).toBe('claude-sonnet-5-5');
    expect(body1.max_tokens).toBe(4096);
    expect(Boolean(body1.stream)).toBe(stream);
    expect(body1.system).toEqual([
      { type: 'text', text: 'You are the coder. Repo map: src/auth.ts', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body1.tools).toEqual([
      { name: 'read_file', description: 'Read a file', input_schema: TOOLS[0]?.inputSchema },
      {
        name: 'run_check',
        description: 'Run a check',
        input_schema: TOOLS[1]?.inputSchema,
        cache_control: { type: 'ephemeral' },
      },
    ]);
    expect(body1.messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: 'Fix the TypeError in auth.ts:45', cache_control: { type: 'ephemeral' } }],
      },
    ]);

    const body2: Wire = r2?.body;
    expect(body2.messages).toEqual([
      // The breakpoint moves to the newest turn: the earlier one is no longer marked.
      { role: 'user', content: [{ type: 'text', text: 'Fix the TypeError in auth.ts:45' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look at the failing file first.' },
          {
            type: 'tool_use',
            id: 'toolu_01',
            name: 'read_file',
            input: { path: 'src/auth.ts', lines: { from: 40, to: 50 } },
          },
        ],
      },
      {
        role: 'user',
        content: [
          // tool_result first, as the API requires, even though the loop put the text first.
          { type: 'tool_result', tool_use_id: 'toolu_01', content: 'ENOENT: src/auth.ts', is_error: true },
          { type: 'text', text: 'Keep going.', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
  });

  it('sends thinking blocks back with the tool-using turn they came with', async () => {
    const withThinking: FixtureMessage = {
      ...TURN_1,
      content: [{ type: 'thinking', thinking: 'Check line 45 first.', signature: 'sig-abc' }, ...TURN_1.content],
    };
    const p = await provider([reply(withThinking), reply(TURN_2)], { stream });
    const first = await p.complete(request([FIRST_USER]));
    expect(first.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
    await p.complete(
      request([
        FIRST_USER,
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [{ type: 'tool_result', toolUseId: 'toolu_01', content: 'export function login() {}' }],
        },
      ]),
    );
    const body2: Wire = server!.requests[1]?.body;
    expect(body2.messages[1].content[0]).toEqual({
      type: 'thinking',
      thinking: 'Check line 45 first.',
      signature: 'sig-abc',
    });
    expect(body2.messages[1].content).toHaveLength(3);
    expect(body2.messages[1].content[2]).not.toHaveProperty('cache_control');
  });
});

describe('AnthropicProvider streaming', () => {
  it('treats an unparseable tool input cut off by max_tokens as a raw string, not a crash', async () => {
    const events = anthropicStream({
      content: [
        { type: 'tool_use', id: 'toolu_9', name: 'write_file', input: { path: 'a.ts', content: 'x'.repeat(40) } },
      ],
      stop_reason: 'max_tokens',
    });
    // Drop the last input_json_delta so the JSON is truncated.
    const lastDelta = events.findLastIndex((e) => e.event === 'content_block_delta');
    events.splice(lastDelta, 1);
    const p = await provider([sse(events)], { stream: true });
    const res = await p.complete(request([FIRST_USER]));
    expect(res.stopReason).toBe('max_tokens');
    const block = res.content[0];
    expect(block?.type).toBe('tool_use');
    expect(typeof (block as { input: unknown }).input).toBe('string');
  });

  it('retries a stream that drops before message_stop', async () => {
    const p = await provider([sse(anthropicStream(TURN_2), { endEarly: 4 }), sse(anthropicStream(TURN_2))], {
      stream: true,
    });
    const res = await p.complete(request([FIRST_USER]));
    expect(res.content).toEqual(TURN_2.content);
    expect(server!.requests).toHaveLength(2);
  });

  it('retries an overloaded_error event that arrives after the 200', async () => {
    const start = anthropicStream(TURN_2).slice(0, 2);
    const broken = sse([...start, { event: 'error', data: anthropicError('overloaded_error', 'Overloaded') }]);
    const p = await provider([broken, sse(anthropicStream(TURN_2))], { stream: true });
    const res = await p.complete(request([FIRST_USER]));
    expect(res.stopReason).toBe('end_turn');
    expect(server!.requests).toHaveLength(2);
  });
});

describe('AnthropicProvider retries', () => {
  it('waits as long as retry-after says on a 429, then succeeds', async () => {
    const p = await provider([
      json(anthropicError('rate_limit_error', 'Rate limited'), 429, { 'retry-after': '1' }),
      json(anthropicMessage(TURN_2)),
    ]);
    const res = await p.complete(request([FIRST_USER]));
    expect(res.content).toEqual(TURN_2.content);
    const [a, b] = server!.requests;
    // Backoff is 5 ms in this test, so a gap of a second can only come from the header.
    expect(b!.receivedAt - a!.receivedAt).toBeGreaterThanOrEqual(950);
    expect(b!.receivedAt - a!.receivedAt).toBeLessThan(3000);
  });

  it('retries 529 overloaded with backoff, then succeeds', async () => {
    const p = await provider([
      json(anthropicError('overloaded_error', 'Overloaded'), 529),
      json(anthropicError('overloaded_error', 'Overloaded'), 529),
      json(anthropicMessage(TURN_2)),
    ]);
    const res = await p.complete(request([FIRST_USER]));
    expect(res.content).toEqual(TURN_2.content);
    expect(server!.requests).toHaveLength(3);
  });

  it('gives up after maxRetries as unavailable, so the job can be retried later', async () => {
    const overloaded = json(anthropicError('overloaded_error', 'Overloaded'), 529);
    const p = await provider([overloaded, overloaded, overloaded], { maxRetries: 2 });
    const err = await providerFailure(p.complete(request([FIRST_USER])));
    expect(err.code).toBe('unavailable');
    expect(err.context).toMatchObject({ provider: 'anthropic', reason: 'overloaded', status: 529, attempts: 3 });
    expect(server!.requests).toHaveLength(3);
  });

  it('does not sleep through a retry-after longer than maxRetryAfterMs', async () => {
    const p = await provider([json(anthropicError('rate_limit_error', 'slow down'), 429, { 'retry-after': '120' })]);
    const started = performance.now();
    const err = await providerFailure(p.complete(request([FIRST_USER])));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(err.context).toMatchObject({ reason: 'rate_limited', retryAfterMs: 120_000, attempts: 1 });
  });

  it('does not retry a 400', async () => {
    const p = await provider([json(anthropicError('invalid_request_error', 'messages: bad'), 400)]);
    const err = await providerFailure(p.complete(request([FIRST_USER])));
    expect(err.code).toBe('agent_failed');
    expect(err.context).toMatchObject({ reason: 'bad_request', status: 400, attempts: 1 });
    expect(err.message).toContain('messages: bad');
  });
});

describe('AnthropicProvider deadlines and cancellation', () => {
  it('times out a request that never answers', async () => {
    const p = await provider([hang()], { timeoutMs: 300, maxRetries: 0 });
    const started = performance.now();
    const err = await providerFailure(p.complete(request([FIRST_USER])));
    expect(err.context.reason).toBe('timeout');
    expect(err.code).toBe('unavailable');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it.each([
    { mode: 'json', stream: false, stall: stallAfterHeaders() },
    {
      mode: 'sse',
      stream: true,
      stall: stallAfterHeaders('text/event-stream', 'event: ping\ndata: {"type":"ping"}\n\n'),
    },
  ])('times out a $mode body that stalls after the headers, then retries', async ({ stream, stall }) => {
    const ok = stream ? sse(anthropicStream(TURN_2)) : json(anthropicMessage(TURN_2));
    const p = await provider([stall, ok], { timeoutMs: 300, maxRetries: 1, stream });
    const res = await p.complete(request([FIRST_USER]));
    expect(res.content).toEqual(TURN_2.content);
    expect(server!.requests).toHaveLength(2);
  });

  it('aborts an in-flight request when the caller signal fires', async () => {
    const p = await provider([hang()]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const err = await providerFailure(p.complete(request([FIRST_USER], { signal: controller.signal })));
    expect(err.code).toBe('cancelled');
    expect(err.context.reason).toBe('cancelled');
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('aborts during the wait before a retry', async () => {
    const p = await provider([json(anthropicError('rate_limit_error', 'wait'), 429, { 'retry-after': '30' })], {
      retry: { maxRetryAfterMs: 60_000 },
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const started = performance.now();
    const err = await providerFailure(p.complete(request([FIRST_USER], { signal: controller.signal })));
    expect(err.code).toBe('cancelled');
    expect(performance.now() - started).toBeLessThan(1500);
    expect(server!.requests).toHaveLength(1);
  });

  it('refuses to start when the signal is already aborted', async () => {
    const p = await provider([json(anthropicMessage(TURN_2))]);
    const err = await providerFailure(p.complete(request([FIRST_USER], { signal: AbortSignal.abort() })));
    expect(err.code).toBe('cancelled');
    expect(server!.requests).toHaveLength(0);
  });
});

describe('AnthropicProvider secrets', () => {
  it.each([
    { status: 401, type: 'authentication_error', reason: 'auth' },
    { status: 400, type: 'invalid_request_error', reason: 'bad_request' },
    { status: 500, type: 'api_error', reason: 'server_error' },
  ])('keeps the API key out of a $status error even when the server echoes it', async ({ status, type, reason }) => {
    const echo = json(anthropicError(type, `invalid x-api-key: ${API_KEY} (header: x-api-key=${API_KEY})`), status);
    const p = await provider([echo], { maxRetries: 0 });
    const err = await providerFailure(p.complete(request([FIRST_USER])));
    expect(err.context.reason).toBe(reason);
    expect(err.message).not.toContain(API_KEY);
    expect(err.message).toContain('[redacted…YZ]');
    expect(JSON.stringify({ ...err, message: err.message, stack: err.stack })).not.toContain(API_KEY);
    expect(err.cause).toBeUndefined();
  });
});
