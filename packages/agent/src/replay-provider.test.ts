import { describe, expect, it } from 'vitest';
import { parseReplayFile, ReplayProvider, ReplayTranscript } from './replay-provider.ts';

const transcript = ReplayTranscript.parse({
  model: 'replay:positions',
  turns: [0, 1, 2, 3].map((i) => ({ content: [{ type: 'text', text: `turn ${i}` }] })),
});
const request = { system: 's', messages: [], tools: [], maxTokens: 100 };
const textOf = async (p: ReplayProvider) => {
  const block = (await p.complete(request)).content[0];
  return block?.type === 'text' ? block.text : '';
};

describe('ReplayProvider', () => {
  it('plays turns in order', async () => {
    const p = new ReplayProvider(transcript);
    expect([await textOf(p), await textOf(p)]).toEqual(['turn 0', 'turn 1']);
  });

  it('a resumed solve moves it past the calls its journal recorded (a new process replays from the right turn)', async () => {
    const p = new ReplayProvider(transcript);
    p.resumeAfter(2);
    expect(await textOf(p)).toBe('turn 2');
  });

  it("answers with a turn's recorded usage under the recorded model, so a replay costs what the recording cost", async () => {
    const recorded = ReplayTranscript.parse({
      model: 'claude-sonnet-5',
      turns: [{ content: [{ type: 'text', text: 'done' }], usage: { inputTokens: 1200, outputTokens: 300 } }],
    });
    const response = await new ReplayProvider(recorded).complete(request);
    expect(response.model).toBe('claude-sonnet-5');
    expect(response.usage).toEqual({ inputTokens: 1200, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});

describe('parseReplayFile: the one parser of REPLAY_FILE', () => {
  it('reads an operation transcript (JSONL) as a replay: its responses in order, text and tool calls kept', () => {
    const lines = [
      { ts: 't', kind: 'task', role: 'planner', system: 's', task: 'x', tools: [] },
      {
        kind: 'response',
        role: 'planner',
        turn: 1,
        model: 'claude-sonnet-5',
        stopReason: 'tool_use',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.js' } },
        ],
        usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      { kind: 'tool', role: 'planner', turn: 1, name: 'read_file', input: {}, isError: false, output: '…' },
      { kind: 'response', role: 'planner', turn: 2, model: 'claude-sonnet-5', content: [{ type: 'text', text: '{}' }] },
      { kind: 'truncated', reason: 'transcript size cap reached' },
    ];
    const replay = parseReplayFile(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    // Replayed, no model is called: it costs nothing, whatever the recording's model cost.
    expect(replay.model).toBe('replay:claude-sonnet-5');
    expect(replay.turns).toEqual([
      {
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.js' } },
        ],
        usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      { content: [{ type: 'text', text: '{}' }] },
    ]);
  });

  it('reads a replay recording (one JSON object), and names what is wrong with a bad one', () => {
    expect(parseReplayFile(JSON.stringify({ turns: [{ content: [{ type: 'text', text: 'hi' }] }] })).model).toBe(
      'replay',
    );
    expect(() => parseReplayFile(JSON.stringify({ turns: [] }))).toThrow(/turns/);
    expect(() => parseReplayFile('{"turns": [')).toThrow(SyntaxError);
    expect(() => parseReplayFile('{"kind":"task"}\n{"kind":"tool"}\n')).toThrow(/turns/);
  });
});
