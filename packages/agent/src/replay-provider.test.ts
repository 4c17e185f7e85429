import { describe, expect, it } from 'vitest';
import { ReplayProvider, ReplayTranscript } from './replay-provider.ts';

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
