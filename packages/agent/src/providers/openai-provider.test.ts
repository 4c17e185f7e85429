import { sampleSecret } from '@pullwright/security/credential-samples';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelMessage, ModelRequest, ToolSpec } from '../model-provider.ts';
import { OpenAIProvider, type OpenAIProviderOptions } from './openai-provider.ts';
import { chatCompletion, openaiError } from './testing/openai-fixtures.ts';
import { providerFailure, type Wire } from './testing/provider-failure.ts';
import {
  hang,
  json,
  type Responder,
  type ScriptedServer,
  stallAfterHeaders,
  startScriptedServer,
} from './testing/scripted-server.ts';

const API_KEY = sampleSecret('openai-api-key', 15);

const TOOLS: ToolSpec[] = [
  {
    name: 'search',
    description: 'Regex search',
    inputSchema: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
  },
];

const FIRST_USER: ModelMessage = { role: 'user', content: [{ type: 'text', text: 'Why does login throw?' }] };

let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function provider(script: Responder[], options: Partial<OpenAIProviderOptions> = {}) {
  server = await startScriptedServer(script);
  return new OpenAIProvider({
    apiKey: API_KEY,
    baseURL: `${server.url}/v1`,
    model: 'gpt-6.1-sol',
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...options,
  });
}

function request(messages: ModelMessage[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: 'You are the planner.', messages, tools: TOOLS, maxTokens: 2048, ...extra };
}

describe('OpenAIProvider two-turn tool use', () => {
  it('maps tool_calls to tool_use and tool_result to role:tool messages', async () => {
    const p = await provider([
      json(
        chatCompletion({
          content: 'Searching.',
          toolCalls: [
            { id: 'call_a', name: 'search', arguments: '{"pattern":"login\\\\("}' },
            { id: 'call_b', name: 'search', arguments: '{"pattern":"session"}' },
          ],
          finishReason: 'tool_calls',
          usage: { prompt_tokens: 1500, completion_tokens: 40, cached_tokens: 1024 },
        }),
      ),
      json(
        chatCompletion({
          content: 'login() reads session.user before the null check.',
          finishReason: 'stop',
          usage: { prompt_tokens: 1700, completion_tokens: 20, cached_tokens: 1280, cache_write_tokens: 100 },
        }),
      ),
    ]);
    const first = await p.complete(request([FIRST_USER]));
    expect(first).toEqual({
      content: [
        { type: 'text', text: 'Searching.' },
        { type: 'tool_use', id: 'call_a', name: 'search', input: { pattern: 'login\\(' } },
        { type: 'tool_use', id: 'call_b', name: 'search', input: { pattern: 'session' } },
      ],
      stopReason: 'tool_use',
      // prompt_tokens counts cached tokens; ours does not.
      usage: { inputTokens: 476, outputTokens: 40, cacheReadTokens: 1024, cacheWriteTokens: 0 },
      model: 'gpt-test',
    });
    const second = await p.complete(
      request([
        FIRST_USER,
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [
            { type: 'tool_result', toolUseId: 'call_a', content: 'src/auth.ts:45: login(' },
            { type: 'tool_result', toolUseId: 'call_b', content: 'regex error', isError: true },
            { type: 'text', text: 'Be brief.' },
          ],
        },
      ]),
    );
    expect(second.content).toEqual([{ type: 'text', text: 'login() reads session.user before the null check.' }]);
    expect(second.stopReason).toBe('end_turn');
    expect(second.usage).toEqual({ inputTokens: 320, outputTokens: 20, cacheReadTokens: 1280, cacheWriteTokens: 100 });

    const [r1, r2] = server!.requests;
    expect(r1?.path).toBe('/v1/chat/completions');
    expect(r1?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const body1: Wire = r1?.body;
    expect(body1).toMatchObject({ model: 'gpt-6.1-sol', max_tokens: 2048 });
    expect(body1.tools).toEqual([
      {
        type: 'function',
        function: { name: 'search', description: 'Regex search', parameters: TOOLS[0]?.inputSchema },
      },
    ]);
    expect(body1.messages).toEqual([
      { role: 'system', content: 'You are the planner.' },
      { role: 'user', content: 'Why does login throw?' },
    ]);
    const body2: Wire = r2?.body;
    expect(body2.messages).toEqual([
      { role: 'system', content: 'You are the planner.' },
      { role: 'user', content: 'Why does login throw?' },
      {
        role: 'assistant',
        content: 'Searching.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'search', arguments: '{"pattern":"login\\\\("}' } },
          { id: 'call_b', type: 'function', function: { name: 'search', arguments: '{"pattern":"session"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'src/auth.ts:45: login(' },
      { role: 'tool', tool_call_id: 'call_b', content: 'ERROR: regex error' },
      { role: 'user', content: 'Be brief.' },
    ]);
  });
});

describe('OpenAIProvider with local servers', () => {
  it('sends no Authorization header without a key and copes with local-server quirks', async () => {
    const p = await provider(
      [
        json(
          chatCompletion({
            content: null,
            // Ollama-style: no id, "stop" although it called a tool, broken JSON, no usage.
            toolCalls: [{ name: 'search', arguments: '{"pattern": "login' }],
            finishReason: 'stop',
          }),
        ),
      ],
      { apiKey: undefined },
    );
    const res = await p.complete(request([FIRST_USER]));
    expect(server!.requests[0]?.headers.authorization).toBeUndefined();
    expect(res.stopReason).toBe('tool_use');
    expect(res.usage).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
    const call = res.content[0];
    expect(call).toMatchObject({ type: 'tool_use', name: 'search', input: '{"pattern": "login' });
    expect((call as { id: string }).id).toMatch(/^call_0_/);
  });

  it('omits tools when there are none (text-edit mode)', async () => {
    const p = await provider([json(chatCompletion({ content: '^^^a.ts\nx\n^^^end', finishReason: 'stop' }))]);
    const res = await p.complete(request([FIRST_USER], { tools: [] }));
    expect(res.content).toEqual([{ type: 'text', text: '^^^a.ts\nx\n^^^end' }]);
    expect(server!.requests[0]?.body).not.toHaveProperty('tools');
  });

  it('uses max_completion_tokens against api.openai.com-style defaults when asked', async () => {
    const p = await provider([json(chatCompletion({ content: 'ok', finishReason: 'stop' }))], {
      maxTokensField: 'max_completion_tokens',
    });
    await p.complete(request([FIRST_USER]));
    const body: Wire = server!.requests[0]?.body;
    expect(body.max_completion_tokens).toBe(2048);
    expect(body).not.toHaveProperty('max_tokens');
  });

  it('rejects a body that is not a chat completion', async () => {
    const p = await provider([json({ hello: 'world' })]);
    const err = await providerFailure(p.complete(request([FIRST_USER])));
    expect(err.context.reason).toBe('invalid_response');
    expect(err.code).toBe('agent_failed');
  });
});

describe('OpenAIProvider retries, deadlines, secrets', () => {
  it('honours retry-after on a 429', async () => {
    const p = await provider([
      json(openaiError('requests', 'Rate limit reached', 'rate_limit_exceeded'), 429, { 'retry-after': '1' }),
      json(chatCompletion({ content: 'ok', finishReason: 'stop' })),
    ]);
    const res = await p.complete(request([FIRST_USER]));
    expect(res.content).toEqual([{ type: 'text', text: 'ok' }]);
    const [a, b] = server!.requests;
    expect(b!.receivedAt - a!.receivedAt).toBeGreaterThanOrEqual(950);
  });

  it('retries 503 from an overloaded local server', async () => {
    const p = await provider([
      json(openaiError('server_error', 'loading model'), 503),
      json(chatCompletion({ content: 'ok', finishReason: 'stop' })),
    ]);
    await p.complete(request([FIRST_USER]));
    expect(server!.requests).toHaveLength(2);
  });

  it('times out a body that stalls after the headers', async () => {
    const p = await provider([stallAfterHeaders()], { timeoutMs: 250, maxRetries: 0 });
    const err = await providerFailure(p.complete(request([FIRST_USER])));
    expect(err.context.reason).toBe('timeout');
  });

  it('aborts when the caller signal fires', async () => {
    const p = await provider([hang()]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 80);
    const err = await providerFailure(p.complete(request([FIRST_USER], { signal: controller.signal })));
    expect(err.code).toBe('cancelled');
  });

  it('keeps the API key out of the error when the server echoes it', async () => {
    const p = await provider([
      json(openaiError('invalid_request_error', `Incorrect API key provided: ${API_KEY}`), 401),
    ]);
    const err = await providerFailure(p.complete(request([FIRST_USER])));
    expect(err.context.reason).toBe('auth');
    expect(err.message).not.toContain(API_KEY);
    expect(JSON.stringify({ ...err, message: err.message, stack: err.stack })).not.toContain(API_KEY);
  });
});
