import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { type ModelProvider, type ModelRequest, type ModelResponse, zeroUsage } from './model-provider.ts';

const ReplayBlock = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('tool_use'),
    id: z.string().optional(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
  }),
]);

/** What a recorded call was billed for (the provider's usage, cached tokens apart). */
const RecordedUsage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative().default(0),
  cacheWriteTokens: z.number().int().nonnegative().default(0),
});

/**
 * A recorded conversation: the model's turns, in order. Tool results come from really running
 * the tools. A turn may carry the usage its call was billed for: replayed under the recorded
 * model's name (`model`, e.g. `claude-sonnet-5`), it then costs what the recording cost — the
 * spend an evaluation's report is checked against. `replay:…` models cost nothing.
 */
export const ReplayTranscript = z.object({
  model: z.string().default('replay'),
  description: z.string().optional(),
  turns: z.array(z.object({ content: z.array(ReplayBlock).min(1), usage: RecordedUsage.optional() })).min(1),
});
export type ReplayTranscript = z.infer<typeof ReplayTranscript>;

/**
 * The lines of an operation's transcript (`transcript.jsonl`, the dashboard's download and
 * `GET /v1/operations/:id/transcript`) a replay reads: each model response, in the order the
 * calls were made. Every other kind (task, tool, resume…) is what the run did with them.
 */
const TranscriptResponse = z.object({
  kind: z.literal('response'),
  model: z.string(),
  content: z.array(z.looseObject({ type: z.string() })),
  usage: RecordedUsage.optional(),
});

/** A transcript's responses as a replay: each becomes a turn; its text and tool calls are kept. */
function fromOperationTranscript(text: string): ReplayTranscript {
  const responses = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { kind?: unknown })
    .filter((entry) => entry.kind === 'response')
    .map((entry) => TranscriptResponse.parse(entry));
  return ReplayTranscript.parse({
    // Replayed, no model is called: it costs nothing, whatever the recorded model's price.
    model: `replay:${responses[0]?.model ?? 'transcript'}`,
    description: 'An operation transcript (transcript.jsonl), replayed',
    turns: responses.map((r) => ({
      content: r.content.filter((b) => b.type === 'text' || b.type === 'tool_use'),
      ...(r.usage ? { usage: r.usage } : {}),
    })),
  });
}

/**
 * The one parser of `REPLAY_FILE`: a replay recording (one JSON object, {@link ReplayTranscript})
 * or an operation's transcript as the dashboard offers it (JSONL, its `response` lines in order).
 * Throws a zod error naming the field, or a syntax error naming the line.
 */
export function parseReplayFile(text: string): ReplayTranscript {
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch (err) {
    // More than one JSON value: JSON Lines. A single broken object keeps its own syntax error.
    if (text.trim().split('\n').length > 1) return fromOperationTranscript(text);
    throw err;
  }
  return ReplayTranscript.parse(whole);
}

export function loadReplayTranscript(file: string): ReplayTranscript {
  return parseReplayFile(readFileSync(file, 'utf8'));
}

/**
 * Plays a recorded transcript turn by turn: the model's side is fixed, everything else
 * (tools, checks, git, the PR) runs for real. For tests, the demo and benchmarks.
 */
export class ReplayProvider implements ModelProvider {
  readonly name = 'replay';
  #next = 0;

  constructor(private readonly transcript: ReplayTranscript) {}

  resumeAfter(modelCalls: number): void {
    this.#next = modelCalls;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    request.signal?.throwIfAborted();
    const turn = this.transcript.turns[this.#next];
    const index = this.#next++;
    if (!turn) {
      return {
        content: [{ type: 'text', text: 'The recorded transcript has no more turns.' }],
        stopReason: 'end_turn',
        usage: zeroUsage(),
        model: this.transcript.model,
      };
    }
    const content = turn.content.map((block, i) =>
      block.type === 'tool_use' ? { ...block, id: block.id ?? `toolu_replay_${index}_${i}` } : block,
    );
    const chars = JSON.stringify(request.messages).length + request.system.length;
    return {
      content,
      stopReason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      // The recorded usage, else rough token counts (4 characters a token) so budgets and the
      // dashboard have numbers to show.
      usage: turn.usage ?? {
        ...zeroUsage(),
        inputTokens: Math.ceil(chars / 4),
        outputTokens: Math.ceil(JSON.stringify(content).length / 4),
      },
      model: this.transcript.model,
    };
  }
}
