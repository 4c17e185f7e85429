import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConversationCheckpoints, RedisKeys } from '@pullwright/queue';
import { PathGuard, Redactor } from '@pullwright/security';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { BudgetTracker } from './budget-tracker.ts';
import { OpenAIProvider } from './providers/openai-provider.ts';
import { priceTableWith } from './providers/price-table.ts';
import { chatCompletion } from './providers/testing/openai-fixtures.ts';
import { json, type Responder, type ScriptedServer, startScriptedServer } from './providers/testing/scripted-server.ts';
import { type SolveInput, solveRequest } from './solve-request.ts';
import type { ToolContext } from './tools/define-tool.ts';

const redis = new Redis(inject('redisUrl'));
afterAll(() => redis.disconnect());

const SECRET = 'sk-live-resume-test-0123456789abcdef';
const usage = { prompt_tokens: 100, completion_tokens: 20 };
const tool = (name: string, args: object): Responder =>
  json(
    chatCompletion({
      toolCalls: [{ id: `call_${randomBytes(4).toString('hex')}`, name, arguments: JSON.stringify(args) }],
      finishReason: 'tool_calls',
      usage,
    }),
  );
const text = (content: string): Responder => json(chatCompletion({ content, finishReason: 'stop', usage }));

/**
 * Five model calls: the coder's four turns (look, read, write, finish) and the reviewer's one.
 * The third turn's tool result carries a secret, which must not reach Redis.
 */
const FIVE_TURNS: Responder[] = [
  tool('list_dir', { path: '.' }),
  tool('read_file', { path: 'notes.txt' }),
  tool('write_file', { path: 'notes.txt', content: 'fixed\n', mode: 'overwrite' }),
  text('Fixed the notes.'),
  text(JSON.stringify({ decision: 'accept', reasons: ['the notes are fixed'], must_fix: [] })),
];

class RedisOutage extends Error {
  override readonly message = 'Connection is closed.';
}

describe('a retried solve resumes its conversation from the last completed turn', () => {
  let root: string;
  let server: ScriptedServer;
  let keys: RedisKeys;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'pw-resume-'));
    execFileSync('git', ['init', '-q', root]);
    await writeFile(path.join(root, 'notes.txt'), `broken (token ${SECRET})\n`);
    server = await startScriptedServer(FIVE_TURNS);
    keys = new RedisKeys(`t${randomBytes(6).toString('hex')}`);
  });
  afterEach(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  /** One attempt of the job: a fresh provider, budget and tool context, the same checkpoint. */
  function attempt(shouldStop?: SolveInput['shouldStop']) {
    const redactor = new Redactor({ secrets: [SECRET] });
    const checkpoints = new ConversationCheckpoints(redis, keys, { scrub: (v) => redactor.redactValue(v) });
    const context: ToolContext = {
      root,
      guard: new PathGuard(root),
      checks: { names: () => [], run: () => Promise.reject(new Error('no checks here')) },
    };
    const phases: string[] = [];
    const steps: string[] = [];
    const result = solveRequest({
      type: 'fix',
      task: 'Fix notes.txt',
      repoMap: 'notes.txt',
      provider: new OpenAIProvider({ baseURL: `${server.url}/v1`, model: 'gpt-test', maxRetries: 0 }),
      context,
      baseline: Promise.resolve({}),
      budget: new BudgetTracker(
        { turns: 40, tokens: 1e6, wallMs: 60_000, costUsd: 5 },
        { prices: priceTableWith({ 'gpt-test': { input: 2, output: 10 } }) },
      ),
      skipPlan: true,
      diff: async () => 'diff --git a/notes.txt b/notes.txt',
      changedFiles: async () => ['notes.txt'],
      readFile: (rel) => readFile(path.join(root, rel), 'utf8'),
      checkpoint: checkpoints.for('op1', 'run'),
      onPhase: async (phase) => void phases.push(phase),
      onStep: async (step) => void steps.push(step.kind === 'model' ? `model ${step.role} ${step.turn}` : step.name),
      ...(shouldStop ? { shouldStop } : {}),
    });
    return { result, phases, steps };
  }

  it('a Redis failure after turn 3 of five: the retry makes only the two remaining model calls', async () => {
    // The cancel check before turn 4 reads Redis: it fails once, as during an outage.
    let checksBeforeTurn = 0;
    const first = attempt(async () => {
      checksBeforeTurn++;
      if (checksBeforeTurn === 4) throw new RedisOutage();
      return undefined;
    });
    await expect(first.result).rejects.toThrow('Connection is closed.');
    expect(server.requests).toHaveLength(3);
    expect(first.steps).toEqual([
      'model coder 1',
      'list_dir',
      'model coder 2',
      'read_file',
      'model coder 3',
      'write_file',
    ]);

    // What Redis holds: the three completed turns, redacted, under the operation's hash tag.
    const stored = await redis.get(keys.conversation('op1', 'run'));
    expect(stored).not.toContain(SECRET);
    expect(JSON.parse(stored!)).toMatchObject({
      steps: [{ kind: 'conversation', role: 'coder', phase: 'code', turns: 3 }],
    });

    const retry = attempt();
    const result = await retry.result;
    expect(server.requests).toHaveLength(5);
    expect(result).toMatchObject({ outcome: 'ready', review: { decision: 'accept' } });
    expect(retry.steps).toEqual(['model coder 4', 'model reviewer 1']);
    // The resumed call continues the same conversation: the first three turns, tool results included.
    const resumed = JSON.stringify(server.requests[3]?.body);
    for (const call of ['list_dir', 'read_file', 'write_file']) expect(resumed).toContain(call);
    expect(resumed).toContain('Overwrote notes.txt');
    // Phases the first attempt reported are not reported again.
    expect(first.phases).toEqual(['code']);
    expect(retry.phases).toEqual(['verify', 'review']);
    expect(await readFile(path.join(root, 'notes.txt'), 'utf8')).toBe('fixed\n');

    // A third attempt after the solve finished replays it all without a single model call.
    const again = await attempt().result;
    expect(again).toMatchObject({ outcome: 'ready' });
    expect(server.requests).toHaveLength(5);
  });

  it('a checkpoint it cannot read (another version) is ignored: the solve starts over', async () => {
    await redis.set(keys.conversation('op1', 'run'), '{"version":2}');
    await expect(attempt().result).resolves.toMatchObject({ outcome: 'ready' });
    expect(server.requests).toHaveLength(5);
  });
});
